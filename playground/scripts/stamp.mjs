// Records a hash of the playground's sources in the built folder (SOURCE_HASH), so a test can tell, without
// Node, that the committed build was made from the committed sources (tests/service/test_playground.py
// computes the same hash: sha256 over "path\0bytes\0" for every source file, paths sorted, '/'-separated).
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
export const SOURCES = ['index.html', 'package.json', 'package-lock.json', 'vite.config.js', 'src'];

function walk(path) {
  return statSync(path).isDirectory() ? readdirSync(path).flatMap((name) => walk(join(path, name))) : [path];
}

const files = SOURCES.flatMap((s) => walk(join(root, s))).map((f) => relative(root, f).split(sep).join('/')).sort();
const hash = createHash('sha256');
for (const file of files) {
  hash.update(file + '\0');
  hash.update(readFileSync(join(root, file)));
  hash.update('\0');
}
const out = join(root, '..', 'service', 'static', 'playground', 'SOURCE_HASH');
writeFileSync(out, hash.digest('hex') + '\n');
console.log(`stamped ${files.length} source files into ${relative(root, out)}`);
