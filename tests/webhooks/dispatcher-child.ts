// A dispatcher in its own process, over the organisation named on the command line, so that a test
// can kill it with SIGKILL in the middle of a batch.
import { dispatchDue } from '../../shared/webhooks/dispatcher.ts';

await dispatchDue({ organisations: [process.argv[2]] });
