// `npm run mutate [area…]`: Stryker once per area of mutation-areas.json (all of them unless named),
// one after another, then the score of every mutated module from the areas' JSON reports.
// Each area run is incremental: only mutants whose code or covering tests changed are tested again.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

const { areas } = JSON.parse(readFileSync(new URL('../mutation-areas.json', import.meta.url), 'utf8'));
const asked = process.argv.slice(2).filter((arg) => !arg.startsWith('-'));
const forwarded = process.argv.slice(2).filter((arg) => arg.startsWith('-'));
const unknown = asked.filter((name) => !(name in areas));
if (unknown.length > 0) {
  process.stderr.write(`Unknown area ${unknown.join(', ')}; the areas are: ${Object.keys(areas).join(', ')}.\n`);
  process.exit(2);
}
const chosen = asked.length > 0 ? asked : Object.keys(areas);

const seconds = {};
let failed = false;
for (const name of chosen) {
  process.stderr.write(`\n== mutate ${name}: ${areas[name].why}\n`);
  const started = Date.now();
  const run = spawnSync('npx', ['stryker', 'run', ...forwarded], {
    stdio: 'inherit',
    env: { ...process.env, MUTATE_AREA: name },
  });
  seconds[name] = Math.round((Date.now() - started) / 1000);
  if (run.status !== 0) {
    failed = true;
    process.stderr.write(`mutate ${name} failed (exit ${run.status ?? run.signal}).\n`);
  }
}

/** Killed + timeout over valid mutants (Stryker's mutation score; no coverage counts as not killed). */
function score(mutants) {
  const count = (status) => mutants.filter((m) => m.status === status).length;
  const detected = count('Killed') + count('Timeout');
  const valid = mutants.length - count('CompileError') - count('RuntimeError') - count('Ignored');
  return {
    detected,
    survived: count('Survived'),
    noCoverage: count('NoCoverage'),
    ignored: count('Ignored'),
    valid,
    score: valid === 0 ? 100 : (100 * detected) / valid,
  };
}

const rows = [];
for (const name of Object.keys(areas)) {
  const path = `reports/mutation/${name}/mutation.json`;
  if (!existsSync(path)) continue;
  const report = JSON.parse(readFileSync(path, 'utf8'));
  for (const [file, { mutants }] of Object.entries(report.files).sort(([a], [b]) => a.localeCompare(b)))
    rows.push({ area: name, file, ...score(mutants) });
}
const lines = [
  '| area | module | score | killed+timeout | survived | no coverage | ignored |',
  '|---|---|---:|---:|---:|---:|---:|',
  ...rows.map(
    (r) =>
      `| ${r.area} | ${r.file} | ${r.score.toFixed(1)}% | ${r.detected}/${r.valid} | ${r.survived} | ${r.noCoverage} | ${r.ignored} |`,
  ),
];
const times = chosen.map((name) => `${name} ${seconds[name]} s`).join(', ');
writeFileSync('reports/mutation/summary.md', `${lines.join('\n')}\n\nThis run: ${times}.\n`);
process.stdout.write(
  `\n${lines.join('\n')}\n\nThis run: ${times}. Reports: reports/mutation/<area>/mutation.html; table: reports/mutation/summary.md\n`,
);
const below = rows.filter((r) => r.score < 80);
if (below.length > 0)
  process.stdout.write(`Below 80%: ${below.map((r) => `${r.file} ${r.score.toFixed(1)}%`).join(', ')}\n`);
process.exit(failed ? 1 : 0);
