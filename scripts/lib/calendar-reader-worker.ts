// A worker thread that reads one imported calendar (see calendar-reader.ts): it says it is ready once
// its modules are loaded, so that the time limit counts the reading alone, then answers the ranges
// or the reason the feed is refused, and is ended.
import { parentPort } from 'node:worker_threads';
import { importedRanges, NotICalendar, type ImportWindow } from '../../shared/properties/ical-import.ts';

const port = parentPort!;
port.once('message', ({ text, window }: { text: string; window: ImportWindow }) => {
  try {
    port.postMessage({ ranges: importedRanges(text, window) });
  } catch (error) {
    port.postMessage({ error: error instanceof Error ? error.message : String(error), notICalendar: error instanceof NotICalendar });
  }
});
port.postMessage({ ready: true });
