// Regenerates the typed client's types from the service's OpenAPI document.
//
//   npm run client:generate             write client/schema.generated.ts
//   npm run client:generate -- --check  exit 1 if the committed file is not what a fresh generation makes
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { firstDifference, regenerateCommand, renderSchema, schemaFile, schemaPath } from './schema.ts';

const fresh = await renderSchema();
if (process.argv.includes('--check')) {
  const difference = existsSync(schemaFile) ? firstDifference(readFileSync(schemaFile, 'utf8'), fresh) : 'the file is missing';
  if (difference) {
    console.error(`${schemaPath} is not current (${difference}). Run ${regenerateCommand} and commit the result.`);
    process.exit(1);
  }
  console.log(`${schemaPath} is current`);
} else {
  writeFileSync(schemaFile, fresh);
  console.log(`wrote ${schemaPath} (${fresh.split('\n').length} lines)`);
}
