// Packs the package as `npm publish` would and unpacks the tarball into `dir/package`:
// what users install, for the checks that read it.
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');

function packInto(dir) {
	const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
	const out = execFileSync(npm, ['pack', '--json', '--ignore-scripts', '--pack-destination', dir], {
		cwd: root,
		encoding: 'utf8',
		stdio: ['ignore', 'pipe', 'inherit'],
	});
	const [info] = JSON.parse(out);
	const unpacked = path.join(dir, 'package');
	fs.mkdirSync(unpacked);
	execFileSync('tar', [
		'-xzf',
		path.join(dir, info.filename),
		'-C',
		unpacked,
		'--strip-components=1',
	]);
	return { info, unpacked };
}

module.exports = { packInto };
