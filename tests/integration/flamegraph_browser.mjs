// flamegraph_browser.mjs - a flamegraph SVG (src/flame/flamegraph.c) used
// as a person would, in headless chromium: it must render, a click on a
// frame must zoom to it and Reset Zoom undo that, a search must report the
// matched share and highlight the matches. Checks the DOM that
// flamegraph.c documents, and the pixels of a screenshot.
//
// usage: node flamegraph_browser.mjs [--screenshot=PNG] SVG FRAME TERM PERCENT [TERM PERCENT]...
//   FRAME    data-name of the frame to click (the widest of that name)
//   TERM     what to type into the search prompt (a regular expression)
//   PERCENT  the "Matched: PERCENT%" expected, e.g. 30.00
// environment: PSREC_NPM_DIR, where `npm install --prefix` put
// puppeteer-core (flamegraph_browser.sh does it); CHROMIUM, the browser
// (default /usr/bin/chromium). Exit 0 on success, 1 with the reasons.
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const args = process.argv.slice(2);
let shot = null;
while (args.length && args[0].startsWith('--')) {
	const a = args.shift();
	if (a.startsWith('--screenshot='))
		shot = a.slice('--screenshot='.length);
	else
		usage(`unknown option ${a}`);
}
if (args.length < 4 || args.length % 2 !== 0)
	usage('wrong number of arguments');
const [svgPath, frameName, ...pairs] = args;
const searches = [];
for (let i = 0; i < pairs.length; i += 2)
	searches.push({ term: pairs[i], pct: pairs[i + 1] });

function usage(why) {
	console.error(`flamegraph_browser.mjs: ${why}\n` +
		'usage: node flamegraph_browser.mjs [--screenshot=PNG] SVG FRAME TERM PERCENT [TERM PERCENT]...');
	process.exit(2);
}

let failures = 0;
function check(ok, what) {
	if (ok) {
		console.log(`ok: ${what}`);
	} else {
		console.error(`FAIL: ${what}`);
		failures++;
	}
	return ok;
}
const near = (a, b, tol) => Math.abs(a - b) <= tol;

const npmDir = process.env.PSREC_NPM_DIR;
if (!npmDir)
	usage('PSREC_NPM_DIR is not set (the directory puppeteer-core was installed into)');
// From the cache directory, not from beside this script: an ES import
// would look only in this script's tree.
const puppeteer = createRequire(path.join(npmDir, 'package.json'))('puppeteer-core');

// A hung browser must not hang the test: meson's timeout would say less.
const watchdog = setTimeout(() => {
	console.error('FAIL: no result after 120 s');
	process.exit(1);
}, 120000);

const browser = await puppeteer.launch({
	executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
	headless: true,
	// --no-sandbox: CI runs as root, where chromium's sandbox refuses to start.
	args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
});
try {
	await run(browser);
} catch (e) {
	check(false, `no exception: ${e && e.stack || e}`);
} finally {
	await browser.close();
	clearTimeout(watchdog);
}
if (failures) {
	console.error(`${failures} check(s) failed`);
	process.exit(1);
}
console.log('all checks passed');

async function run(browser) {
	const page = await browser.newPage();
	const errors = [];
	page.on('pageerror', (e) => errors.push(String(e)));
	page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
	let answer = null;
	page.on('dialog', async (d) => {
		if (d.type() === 'prompt' && answer !== null)
			await d.accept(answer);
		else
			await d.dismiss();
	});

	// No network: nothing but the file itself may be requested.
	const requests = [];
	page.on('request', (r) => requests.push(r.url()));
	const url = pathToFileURL(path.resolve(svgPath)).href;
	await page.goto(url, { waitUntil: 'load' });
	check(requests.every((u) => u === url), `the SVG loads nothing else (${requests.join(' ') || 'none'})`);

	const doc = await page.evaluate(() => {
		const svg = document.documentElement;
		return {
			root: svg.localName, ns: svg.namespaceURI,
			parseError: !!document.querySelector('parsererror'),
			width: +svg.getAttribute('width'), height: +svg.getAttribute('height'),
			frames: document.querySelectorAll('g.f').length,
			drawn: [...document.querySelectorAll('g.f rect')].filter((r) => r.getBBox().width > 0).length,
		};
	});
	check(doc.root === 'svg' && doc.ns === 'http://www.w3.org/2000/svg', 'the document is an SVG');
	check(!doc.parseError, 'no XML parse error');
	check(doc.drawn >= 3 && doc.drawn === doc.frames, `${doc.frames} frames, all with a nonzero width`);
	if (!doc.frames)
		return;
	await page.setViewport({ width: doc.width, height: doc.height });
	await renders(page, browser);

	// All frames' geometry, to compare after zoom and reset.
	const geometry = () => page.evaluate(() => [...document.querySelectorAll('g.f')].map((g) => {
		const r = g.querySelector('rect'), t = g.querySelector('text');
		return {
			name: g.getAttribute('data-name'), x: +r.getAttribute('x'), w: +r.getAttribute('width'),
			y: +r.getAttribute('y'), shown: getComputedStyle(g).display !== 'none', text: t ? t.textContent : '',
			cls: g.getAttribute('class'),
		};
	}));
	const before = await geometry();
	const rootBox = before[0];
	const full = rootBox.w;
	let target = -1;
	before.forEach((f, i) => {
		if (f.name === frameName && (target < 0 || f.w > before[target].w))
			target = i;
	});
	if (!check(target >= 0, `a frame named ${frameName}`))
		return;
	const z = before[target];

	// Hover: the details line names the frame.
	const box = await frameBox(page, target);
	await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
	const details = await page.$eval('#details', (e) => e.textContent);
	check(details.includes(frameName) && /\d%\)/.test(details), `hover shows "${details}"`);

	// Zoom: the frame becomes full width, its ancestors too, its subtree is
	// scaled by the same ratio, everything else is hidden.
	await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
	const zoomed = await geometry();
	check(near(zoomed[target].w, full, 0.15), `${frameName} zoomed: ${z.w} -> ${zoomed[target].w} px (full: ${full})`);
	check(near(zoomed[target].x, rootBox.x, 0.15), `${frameName} zoomed starts at the left edge`);
	const ratio = full / z.w, depth = (f) => Math.abs(f.y - rootBox.y), dz = depth(z);
	let bad = 0, hidden = 0, scaled = 0, ancestors = 0;
	before.forEach((f, i) => {
		const a = zoomed[i];
		const inside = f.x >= z.x - 0.01 && f.x + f.w <= z.x + z.w + 0.01;
		const covers = f.x <= z.x + 0.01 && f.x + f.w >= z.x + z.w - 0.01;
		if (depth(f) < dz && covers) {
			ancestors++;
			if (!a.shown || !near(a.w, full, 0.15))
				bad++;
		} else if (depth(f) >= dz && inside) {
			scaled++;
			if (!a.shown || !near(a.w, f.w * ratio, 0.15 + 0.05 * ratio) ||
			    !near(a.x, rootBox.x + (f.x - z.x) * ratio, 0.15 + 0.05 * ratio))
				bad++;
		} else {
			hidden++;
			if (a.shown)
				bad++;
		}
	});
	check(bad === 0, `zoom: ${ancestors} ancestors full width, ${scaled} frames scaled x${ratio.toFixed(2)}, ` +
		`${hidden} hidden (${bad} wrong)`);
	const rowH = before.length > 1 ? Math.abs(before[1].y - rootBox.y) : 16;
	check(ancestors === Math.round(dz / rowH), `every row between the root and ${frameName} holds one ancestor`);
	if (full * 0.99 > z.w)
		check(hidden > 0, 'zooming hid frames outside');
	const fits = [...zoomed[target].name].length * 7.3 + 6 < full;
	if (fits)
		check(zoomed[target].text === frameName, `the zoomed frame shows its whole name ("${zoomed[target].text}")`);
	check(await visible(page, '#unzoom'), 'Reset Zoom is shown');

	// Reset Zoom: everything back as it was.
	await clickOn(page, '#unzoom');
	const reset = await geometry();
	const moved = reset.filter((f, i) => !f.shown || !near(f.x, before[i].x, 0.05) || !near(f.w, before[i].w, 0.05) ||
		f.text !== before[i].text);
	check(moved.length === 0, `Reset Zoom restores every frame (${moved.length} differ` +
		(moved.length ? `, e.g. ${JSON.stringify(moved[0])}` : '') + ')');
	check(!(await visible(page, '#unzoom')), 'Reset Zoom is hidden again');

	for (const s of searches) {
		answer = s.term;
		await clickOn(page, '#search');
		const res = await page.evaluate(() => {
			const m = [...document.querySelectorAll('g.f.m')];
			return {
				matched: document.getElementById('matched').textContent,
				button: document.getElementById('search').textContent,
				names: m.map((g) => g.getAttribute('data-name')),
				fills: [...new Set(m.map((g) => getComputedStyle(g.querySelector('rect')).fill))],
			};
		});
		check(res.matched === `Matched: ${s.pct}%`, `search ${s.term}: "${res.matched}", expected "Matched: ${s.pct}%"`);
		let re;
		try {
			re = new RegExp(s.term);
		} catch {
			re = { test: (n) => n.includes(s.term) };
		}
		const want = before.filter((f) => re.test(f.name)).length;
		check(res.names.length === want && res.names.every((n) => re.test(n)),
			`search ${s.term}: ${res.names.length} frames highlighted, expected ${want}`);
		if (want)
			check(res.fills.length === 1 && res.fills[0] !== '',
				`search ${s.term}: highlighted in one color (${res.fills.join(', ')})`);
		// The highlight is in the pixels too: the first match's center.
		if (want) {
			const i = before.findIndex((f) => re.test(f.name));
			const b = await frameBox(page, i);
			// left of the text, which starts 3 px in
			// polled: on a busy machine the paint can come after the DOM
			const magenta = (p) => p[0] > 200 && p[1] < 40 && p[2] > 200;
			let px;
			for (let tries = 0; tries < 100; tries++) {
				px = await pixelAt(page, browser, b.x + Math.min(b.width / 2, 1.5), b.y + b.height / 2);
				if (magenta(px))
					break;
				await new Promise((r) => setTimeout(r, 100));
			}
			check(magenta(px), `search ${s.term}: the match is drawn magenta (${px})`);
		}
		check(res.button === 'Reset Search', 'the search button turns into Reset Search');
		await clickOn(page, '#search');
		const after = await page.evaluate(() => [document.querySelectorAll('g.f.m').length,
			document.getElementById('matched').textContent.trim()]);
		check(after[0] === 0 && after[1] === '', 'Reset Search clears the highlight and the share');
	}
	if (shot)
		await page.screenshot({ path: shot });
	check(errors.length === 0, `no script errors (${errors.join('; ')})`);
}

async function frameBox(page, i) {
	return page.evaluate((i) => {
		const r = document.querySelectorAll('g.f')[i].querySelector('rect').getBoundingClientRect();
		return { x: r.x, y: r.y, width: r.width, height: r.height };
	}, i);
}

async function visible(page, sel) {
	return page.$eval(sel, (e) => getComputedStyle(e).display !== 'none' && e.getBoundingClientRect().width > 0);
}

async function clickOn(page, sel) {
	const b = await page.$eval(sel, (e) => {
		const r = e.getBoundingClientRect();
		return { x: r.x + r.width / 2, y: r.y + r.height / 2 };
	});
	await page.mouse.click(b.x, b.y);
}

// The screenshot's pixels, decoded by the browser itself (a canvas in a
// blank page): no PNG decoder needed here.
async function pixels(page, browser) {
	const png = await page.screenshot({ encoding: 'base64' });
	const p = await browser.newPage();
	try {
		return await p.evaluate(async (src) => {
			const img = new Image();
			img.src = src;
			await img.decode();
			const c = document.createElement('canvas');
			c.width = img.width;
			c.height = img.height;
			const ctx = c.getContext('2d');
			ctx.drawImage(img, 0, 0);
			return { width: c.width, height: c.height, data: [...ctx.getImageData(0, 0, c.width, c.height).data] };
		}, `data:image/png;base64,${png}`);
	} finally {
		await p.close();
	}
}

async function pixelAt(page, browser, x, y) {
	const im = await pixels(page, browser);
	const o = (Math.round(y) * im.width + Math.round(x)) * 4;
	return im.data.slice(o, o + 3);
}

// Non-blank: many distinct colors, and each frame's color where its rect is.
async function renders(page, browser) {
	const im = await pixels(page, browser);
	const colors = new Set();
	for (let o = 0; o < im.data.length; o += 4)
		colors.add((im.data[o] << 16) | (im.data[o + 1] << 8) | im.data[o + 2]);
	check(colors.size > 20, `the screenshot has ${colors.size} distinct colors`);
	const samples = await page.evaluate(() => [...document.querySelectorAll('g.f')].map((g) => {
		const r = g.querySelector('rect'), b = r.getBoundingClientRect();
		return { name: g.getAttribute('data-name'), fill: r.getAttribute('fill'), w: b.width,
			x: b.x + 1.5, y: b.y + b.height / 2 };
	}).filter((s) => s.w >= 4).slice(0, 50));
	let wrong = 0;
	for (const s of samples) {
		const o = (Math.round(s.y) * im.width + Math.round(s.x)) * 4;
		const want = parseInt(s.fill.slice(1), 16);
		const got = [im.data[o], im.data[o + 1], im.data[o + 2]];
		if (!near(got[0], want >> 16, 3) || !near(got[1], (want >> 8) & 255, 3) || !near(got[2], want & 255, 3)) {
			if (!wrong)
				console.error(`  ${s.name}: rgb(${got}) at (${s.x}, ${s.y}), fill ${s.fill}`);
			wrong++;
		}
	}
	check(wrong === 0, `${samples.length - wrong} of ${samples.length} frames drawn in their fill color`);
}
