// The request every sample payload names: obviously fictional (`SIM-`), so a simulated event or a
// sample copied from the catalogue can never be mistaken for one about a real request, nor for the
// guides' examples.

export const sampleRequest = {
  request_id: '0b9f6a4e-5f55-4a43-9d1c-3c2f1d9a7e10',
  reference: 'SIM-7KQ2MX',
  external_id: 'SIM-CLM-1001',
};

/** A provider's home reference (its api_external_id) in samples. */
export const sampleHomeRef = 'SIM-UNIT-204';
