// The domains' refusals and the HTTP layer's one mapping of them: every code a domain may raise has
// a status in the table of codes that fits its kind, a refusal answers with the same code, message,
// field and facts it was raised with, not_on_request takes the status its kind says, and a thing not
// found is told, as before, what the other environment may hold.
import { describe, expect, it } from 'vitest';
import { conflict, domainErrorCodes, invalid, isDomainError, missing, notFound, type DomainErrorKind } from '../../shared/domain-errors.ts';
import { ApiError, apiErrorOf, refusalOf, statusOfRefusal } from '../../shared/http/errors.ts';

describe('the domain errors, as the API answers them', () => {
  it('give every code of every kind a status of that kind from the table of codes', () => {
    const expected: Record<DomainErrorKind, number[]> = { not_found: [404], conflict: [409], invalid: [400, 413, 415, 422], refused: [403], unavailable: [503] };
    const unmapped = Object.entries(domainErrorCodes).flatMap(([kind, codes]) =>
      codes.filter((code) => !expected[kind as DomainErrorKind].includes(statusOfRefusal(kind as DomainErrorKind, code) ?? 0)).map((code) => `${kind} ${code}`));
    expect(unmapped, 'codes a domain may raise without a status of their kind').toEqual([]);
    expect(statusOfRefusal('invalid', 'could_not_place')).toBe(400);
    expect(statusOfRefusal('invalid', 'stay_too_short')).toBe(422);
  });

  it('answer with the code, message, field and facts the domain raised, at the kind\'s status', () => {
    const refusal = apiErrorOf(conflict('dates_unavailable', 'Something already holds part of these dates.', undefined, { conflicts: [{ start_date: '2027-01-01' }] }));
    expect(refusal).toBeInstanceOf(ApiError);
    expect(refusal.status).toBe(409);
    expect(refusal.toBody().error).toMatchObject({ code: 'dates_unavailable', message: 'Something already holds part of these dates.', conflicts: [{ start_date: '2027-01-01' }] });
    expect(refusal.toBody().error).not.toHaveProperty('field');
    const wrong = apiErrorOf(invalid('invalid_field', 'move_out must be after move_in.', 'move_out'));
    expect([wrong.status, wrong.code, wrong.field]).toEqual([422, 'invalid_field', 'move_out']);
  });

  it('answer not_on_request 409 as a conflict and 404 as a thing not found', () => {
    expect(apiErrorOf(conflict('not_on_request', 'not on it', 'property_id')).status).toBe(409);
    expect(apiErrorOf(missing('not_on_request', 'not on it', 'property_id')).status).toBe(404);
  });

  it('tell a key reading a thing not found what the other environment may hold', () => {
    const refusal = refusalOf(notFound('housing request'))!;
    expect(refusal.status).toBe(404);
    expect(refusal.message).toBe('No such housing request for this organisation in this environment.');
    expect(refusal.toBody('live').error.message).toMatch(/^No such housing request for this organisation in live\. .*sandbox/);
    // A not_found raised with words of its own keeps them.
    expect(refusalOf(missing('not_found', 'No home h-1 for this organisation in this environment.', 'blocks[0].property_id'))!.toBody('live').error.message)
      .toBe('No home h-1 for this organisation in this environment.');
  });

  it('are told apart by kind, and are no answer of the API until mapped', () => {
    const raised = conflict('already_signed', 'signed');
    expect(isDomainError(raised, 'conflict')).toBe(true);
    expect(isDomainError(raised, 'invalid')).toBe(false);
    expect(isDomainError(new ApiError('already_signed', 'signed'))).toBe(false);
    expect(refusalOf(new Error('boom'))).toBeUndefined();
  });
});
