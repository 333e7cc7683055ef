import postgres from 'postgres';

/** A new, empty database in the test run's PostgreSQL, for tests that migrate or break one. */
export async function scratchDatabase(admin: postgres.Sql) {
  const name = `scratch_${crypto.randomUUID().replace(/-/g, '').slice(0, 12)}`;
  await admin.unsafe(`create database ${name}`);
  const url = process.env.DATABASE_URL!.replace(/\/[^/?]+(\?|$)/, `/${name}$1`);
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  return {
    name,
    url,
    sql,
    drop: async () => {
      await sql.end();
      await admin.unsafe(`drop database if exists ${name} with (force)`);
    },
  };
}
