// Browser test of ksnap's HTML report (run it through tests/browser/run.sh).
//
// For each report (shared corpus base..no_licm; the same with a variant only in
// BASE and one only in HEAD; examples/corpus when present):
// builds it with `ksnap diff --format html` and `--format json`, opens it in
// headless Debian chromium (playwright-core), and checks: no network request
// and no script error; the summary figures equal the JSON output; nothing of
// the hunks is in the DOM before a group is opened; opening a group renders
// its hunks with lexer token classes and word highlights; the unified / side-
// by-side toggle; folded context expands; kernel / stage / status filters and
// the search box give the counts the JSON predicts; j/k/n/p/v keys move between
// hunks. Layout: at 1400x900 the first change group is on the first screen
// and the page never scrolls sideways; the kernel cards have a legend; at
// phone width (390x844) the diff is unified only and the toolbar does not
// stick over the content. Saves screenshots (OUT_DIR, by default
// build/browser-artifacts, which CI uploads), then loads a 10,000-variant
// report (made by bench/html_report_bench) and prints its load time.
//
// Environment: KSNAP_BIN, HTML_BENCH, KSNAP_CORPUS_DIR, KSNAP_EXAMPLE_DIR,
// CHROMIUM, OUT_DIR (all set by run.sh), MAX_LOAD_MS (default 10000).
import {execFileSync} from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {chromium} from 'playwright-core';

const env = process.env;
const OUT = env.OUT_DIR;
const MAX_LOAD_MS = +(env.MAX_LOAD_MS || 10000);
let failures = 0, checks = 0;

function check(ok, what, detail = '') {
  checks++;
  if (!ok) {
    failures++;
    console.log('  FAIL ' + what + (detail ? ': ' + detail : ''));
  }
}
function eq(got, want, what) {
  check(JSON.stringify(got) === JSON.stringify(want), what, 'got ' + JSON.stringify(got) + ', want ' + JSON.stringify(want));
}

const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

async function openBrowser() {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'ksnap-chromium-'));
  const ctx = await chromium.launchPersistentContext(profile, {
    executablePath: env.CHROMIUM, headless: true, args: FLAGS, viewport: {width: 1400, height: 900},
  });
  return {ctx, profile};
}

/// Opens a report; every request must be for the file itself, and no script error may happen.
async function openReport(ctx, file) {
  const page = await ctx.newPage();
  const problems = [];
  page.on('request', (r) => { if (!r.url().startsWith('file://')) problems.push('request ' + r.url()); });
  page.on('pageerror', (e) => problems.push('page error ' + e.message));
  page.on('console', (m) => { if (m.type() === 'error') problems.push('console error ' + m.text()); });
  const t0 = Date.now();
  await page.goto('file://' + file, {timeout: 120000});
  await page.waitForSelector('body[data-ready="1"]', {timeout: 120000});
  const wallMs = Date.now() - t0;
  const info = await page.evaluate(() => ({...window.ksnapReport, nodes: document.getElementsByTagName('*').length}));
  return {page, problems, wallMs, info};
}

// ---- what the JSON output predicts ------------------------------------------
// (docs/diff-json.md: a line is [kind, text, base_line, head_line, py_line, highlights])
function predictions(j) {
  const lone = j.variants.filter((v) => Object.values(v.stages).some((s) => s.status === 'added' || s.status === 'removed'));
  const groupHunks = (g) => g.hunks;
  const haystack = (g) => [g.label, g.stage, ...g.variants.map((i) => j.variants[i].config),
    ...g.ops.map((o) => o[0]),
    ...g.hunks.flatMap((h) => [h.unit, ...h.lines.map((l) => l[1])])].join('\n').toLowerCase();
  return {lone, groupHunks, haystack};
}

/// The page never scrolls sideways.
async function noSideways(page, what) {
  const w = await page.evaluate(() => ({scroll: document.documentElement.scrollWidth, view: window.innerWidth}));
  check(w.scroll <= w.view, `no horizontal page overflow (${what})`, `${w.scroll} > ${w.view}`);
}

async function testReport(ctx, name, html, j) {
  console.log(`report ${name}: ${j.variants.length} variants, ${j.groups.length} groups`);
  const {page, problems, wallMs, info} = await openReport(ctx, html);
  const P = predictions(j);
  console.log(`  loaded in ${wallMs} ms (script ${info.readyMs.toFixed(1)} ms), ${info.nodes} elements`);

  // Summary figures against --format json.
  for (const s of j.summary)
    for (const k of ['unchanged', 'changed', 'added', 'removed'])
      eq(await page.textContent(`td[data-stage="${s.stage}"][data-status="${k}"]`), String(s[k]), `summary ${s.stage} ${k}`);
  const total = async (k) => page.textContent(`[data-total="${k}"]`);
  eq(await total('variants'), String(j.variants.length), 'total variants');
  eq(await total('changed_variants'), String(j.totals.changed_variants), 'total changed variants');
  eq(await total('added'), String(j.variants.filter((v) => v.pairing === 'added').length), 'total added');
  eq(await total('removed'), String(j.variants.filter((v) => v.pairing === 'removed').length), 'total removed');
  eq(await total('changed_stages'), String(j.changed_stages), 'total changed kernel-stages');
  eq(await total('groups'), String(j.totals.groups), 'total groups');
  const kernels = new Set(j.variants.map((v) => v.label));
  eq(await page.locator('.kcard').count(), Math.min(kernels.size, 60), 'one chart per kernel');
  const count = async () => +(await page.getAttribute('#f-count', 'data-changes'));
  const vcount = async () => +(await page.getAttribute('#f-count', 'data-variants'));
  eq(await count(), j.groups.length + P.lone.length, 'changes listed');
  // No two collapsed rows read the same (each names its variant).
  const rows = await page.evaluate(() =>
      [...document.querySelectorAll('details.entry > summary')].map((s) => s.textContent));
  eq(rows.length - new Set(rows).size, 0, 'collapsed rows all read differently');
  eq(await vcount(), j.variants.length, 'variants listed');

  // Lazy: no hunk in the DOM until a group is opened.
  eq(await page.locator('.hunk').count(), 0, 'no hunk rendered at load');
  check(await page.locator('details.entry').count() <= 40, 'change headers rendered in chunks');
  // First screen (1400x900): the first change group is visible without scrolling.
  if (j.groups.length) {
    const box = await page.locator('#changes details.entry').first().boundingBox();
    check(box && box.y >= 0 && box.y + box.height <= 900, 'first change group on the first screen',
        box ? `at y=${box.y.toFixed(0)}..${(box.y + box.height).toFixed(0)}` : 'none');
  }
  await noSideways(page, 'at load');
  eq(await page.locator('#kernel-legend .sw').count(), 4, 'legend of the kernel-card bars');
  await page.screenshot({path: path.join(OUT, `${name}-first-screen.png`)});
  if (!j.groups.length) { await page.close(); return; }

  // Open the first group by clicking it.
  const g0 = j.groups[0], h0 = P.groupHunks(g0);
  await page.click('#g-0 > summary');
  await page.waitForSelector('#g-0 .hunk');
  eq(await page.locator('#g-0 .hunk').count(), h0.length, 'group 0 hunks');
  check(await page.locator('#g-0 .hunk .to').count() > 0, 'op token class from the lexer');
  check(await page.locator('#g-0 .hunk .tv').count() > 0, 'value token class from the lexer');
  const hasWords = h0.some((h) => h.lines.some((l) => l[5].length));
  if (hasWords) check(await page.locator('#g-0 .hunk .w').count() > 0, 'word-level highlights');
  const firstAdded = h0.flatMap((h) => h.lines).find((l) => l[0] === '+');
  if (firstAdded) eq(await page.textContent('#g-0 tr.l-a td.code'), firstAdded[1], 'added line text');
  check((await page.textContent('#g-0 .meta')).includes(`Variants (${g0.count})`), 'variants covered');

  // Folded context: "show N lines" replaces one row by N.
  const fold = page.locator('#g-0 .fold-btn').first();
  if (await fold.count()) {
    const n = +(await fold.textContent()).match(/show (\d+)/)[1];
    const rows = page.locator(`#g-0 .hunk[data-h="${await fold.getAttribute('data-h')}"] tr`);
    const before = await rows.count();
    await fold.click();
    const after = await rows.count();
    eq(after, before - 1 + n, 'expanded context rows');
  }

  // View toggle.
  await page.click('#view-split');
  eq(await page.locator('#g-0 table.diff.unified').count(), 0, 'split view: no unified table');
  eq(await page.locator('#g-0 table.diff.split').count(), h0.length, 'split view tables');
  const paired = h0.some((h) => h.lines.some((l) => l[0] === '-') && h.lines.some((l) => l[0] === '+'));
  if (paired) check(await page.locator('#g-0 tr:has(td.l-r):has(td.l-a)').count() > 0, 'removed and added side by side');
  await noSideways(page, 'side by side');
  await page.screenshot({path: path.join(OUT, `${name}-split.png`)});
  await page.click('#view-unified');
  eq(await page.locator('#g-0 table.diff.unified').count(), h0.length, 'back to unified');

  // Filters: kernel, then stage, then status.
  const k0 = g0.label;
  await page.selectOption('#f-kernel', {label: k0});
  const wantK = j.groups.filter((g) => g.label === k0).length + P.lone.filter((v) => v.label === k0).length;
  eq(await count(), wantK, `kernel filter ${k0}`);
  const shownKernels = await page.$$eval('details.entry', (es) => Array.from(new Set(es.map((e) => e.dataset.kernel))));
  eq(shownKernels, wantK ? [k0] : [], 'only that kernel shown');
  eq(await vcount(), j.variants.filter((v) => v.label === k0).length, 'kernel filter variants');
  await page.selectOption('#f-stage', {label: g0.stage});
  eq(await count(), j.groups.filter((g) => g.label === k0 && g.stage === g0.stage).length +
      P.lone.filter((v) => v.label === k0 && ['added', 'removed'].includes(v.stages[g0.stage]?.status)).length, 'kernel+stage filter');
  await page.selectOption('#f-status', 'unchanged');
  eq(await count(), 0, 'no change group is unchanged');
  eq(await vcount(), j.variants.filter((v) => v.label === k0 && v.stages[g0.stage]?.status === 'unchanged').length, 'unchanged variants');
  await page.selectOption('#f-status', 'added');
  eq(await count(), P.lone.filter((v) => v.label === k0 && v.stages[g0.stage]?.status === 'added').length, 'added filter');
  await page.selectOption('#f-kernel', '-1');
  await page.selectOption('#f-stage', '-1');
  for (const st of ['changed', 'added', 'removed']) {
    await page.selectOption('#f-status', st);
    const lone = P.lone.filter((v) => Object.values(v.stages).some((s) => s.status === st)).length;
    eq(await count(), st === 'changed' ? j.groups.length : lone, `status filter ${st}`);
    eq(await vcount(), j.variants.filter((v) => Object.values(v.stages).some((s) => s.status === st)).length,
        `status filter ${st}: variants`);
    if (st !== 'changed' && lone) {
      await page.click('details.entry.lone > summary');
      check((await page.textContent('details.entry.lone .meta')).includes(st), `${st} variant shows its stages`);
    }
  }
  await page.selectOption('#f-status', '');
  eq(await count(), j.groups.length + P.lone.length, 'filters cleared');

  // Search: an op of an added line of group 0.
  const word = firstAdded ? (firstAdded[1].match(/[A-Za-z_][\w.]*\.[\w.]+/) || firstAdded[1].match(/[A-Za-z_]\w{3,}/) || [''])[0] : '';
  if (word) {
    await page.fill('#f-search', word);
    await page.press('#f-search', 'Enter');
    const q = word.toLowerCase();
    const want = j.groups.filter((g) => P.haystack(g).includes(q)).length +
        P.lone.filter((v) => (v.label + '\n' + v.config + '\n' + v.pairing).toLowerCase().includes(q)).length;
    eq(await count(), want, `search "${word}"`);
    await page.click('details.entry.group > summary');
    await page.waitForSelector('details.entry.group .hunk');
    check(await page.locator('.hunk .sm').count() > 0, 'search matches marked in the code');
    await page.fill('#f-search', '');
    await page.press('#f-search', 'Enter');
    await page.press('#f-search', 'Escape');
  }

  // Keyboard navigation: j walks the hunks of change 1, then into change 2; k walks back.
  eq(await page.locator('.hunk.focus').count(), 0, 'no focus before keys');
  await page.keyboard.press('j');
  eq(await page.textContent('#f-pos'), `change 1 of ${j.groups.length + P.lone.length} · hunk 1 of ${h0.length}`, 'j: first hunk');
  eq(await page.locator('.hunk.focus').count(), 1, 'one focused hunk');
  for (let i = 1; i < h0.length; i++) await page.keyboard.press('j');
  eq(await page.textContent('#f-pos'), `change 1 of ${j.groups.length + P.lone.length} · hunk ${h0.length} of ${h0.length}`, 'j: last hunk of change 1');
  if (j.groups.length > 1) {
    await page.keyboard.press('j');
    check((await page.textContent('#f-pos')).startsWith('change 2 of'), 'j: into change 2');
    check(await page.locator('#g-1[open]').count() === 1, 'j opened change 2');
    await page.keyboard.press('k');
    eq(await page.textContent('#f-pos'), `change 1 of ${j.groups.length + P.lone.length} · hunk ${h0.length} of ${h0.length}`, 'k: back');
    await page.keyboard.press('n');
    check((await page.textContent('#f-pos')).startsWith('change 2 of'), 'n: next change');
    await page.keyboard.press('p');
    check((await page.textContent('#f-pos')).startsWith('change 1 of'), 'p: previous change');
  }
  await page.keyboard.press('v');
  eq(await page.getAttribute('#view-split', 'aria-pressed'), 'true', 'v: side by side');
  const focused = await page.locator('.hunk.focus');
  await focused.scrollIntoViewIfNeeded();
  await page.screenshot({path: path.join(OUT, `${name}-keys-split.png`)});
  await page.keyboard.press('v');

  // Variant table: a changed cell opens its group.
  const cell = page.locator('#variant-rows button[data-open-group]').first();
  if (await cell.count()) {
    const gi = await cell.getAttribute('data-open-group');
    await cell.click();
    check(await page.locator(`#g-${gi}[open] .hunk`).count() > 0, 'variant cell opens its group');
  }
  for (const p of problems) check(false, 'clean page', p);
  await page.close();
}

/// A phone: unified view only, a toolbar that does not stick over the content,
/// no sideways scrolling.
async function testPhone(ctx, name, html, j) {
  const {page, problems} = await openReport(ctx, html);
  await page.setViewportSize({width: 390, height: 844});
  await page.waitForTimeout(100);
  await noSideways(page, 'phone');
  eq(await page.isVisible('#view-split'), false, 'phone: no side-by-side toggle');
  const tb = await page.evaluate(() => {
    const t = document.getElementById('toolbar');
    return {position: getComputedStyle(t).position, height: t.getBoundingClientRect().height};
  });
  check(tb.position !== 'sticky' && tb.position !== 'fixed', 'phone: toolbar does not stick', tb.position);
  check(tb.height < 0.25 * 844, 'phone: toolbar under a quarter of the screen', String(tb.height));
  // The statistics' HEAD and change columns are on screen, not scrolled away.
  const stats = await page.evaluate(() => {
    const t = document.getElementById('statistics');
    if (!t) return null;
    const heads = [...t.querySelectorAll('thead th, tr:first-child th')];
    const want = heads.filter(h => /^(HEAD|change)$/.test(h.textContent.trim()));
    return want.map(h => ({name: h.textContent.trim(), right: h.getBoundingClientRect().right,
                           shown: h.getBoundingClientRect().width > 0}));
  });
  if (stats) {
    eq(stats.length, 2, 'phone: statistics have HEAD and change columns');
    for (const c of stats)
      check(c.shown && c.right <= 390, `phone: statistics column ${c.name} on screen`, JSON.stringify(c));
  }
  if (j.groups.length) {
    await page.click('#g-0 > summary');
    await page.waitForSelector('#g-0 .hunk');
    await page.keyboard.press('v');  // asks for side by side: stays unified
    eq(await page.locator('#g-0 table.diff.split').count(), 0, 'phone: unified view forced');
    eq(await page.locator('#g-0 table.diff.unified').count(), j.groups[0].hunks.length, 'phone: unified hunks');
    await noSideways(page, 'phone, group open');
    await page.locator('#g-0').scrollIntoViewIfNeeded();
  }
  await page.screenshot({path: path.join(OUT, `${name}-phone.png`)});
  for (const p of problems) check(false, 'phone clean page', p);
  await page.close();
}

async function testBig(ctx, html) {
  const {page, problems, wallMs, info} = await openReport(ctx, html);
  const mb = fs.statSync(html).size / 1e6;
  console.log(`10k report: ${info.variants} variants, ${info.groups} groups, ${mb.toFixed(1)} MB: ` +
      `loaded in ${wallMs} ms (navigation to ready; script ${info.readyMs.toFixed(1)} ms), ${info.nodes} elements`);
  check(info.variants >= 10000, '10k variants embedded');
  check(wallMs < MAX_LOAD_MS, `10k report loads in under ${MAX_LOAD_MS} ms`, `${wallMs} ms`);
  check(info.nodes < 20000, 'DOM stays small', String(info.nodes));
  eq(await page.locator('.hunk').count(), 0, '10k: no hunk at load');
  let t = Date.now();
  await page.selectOption('#f-stage', {label: 'ptx'});
  const ms1 = Date.now() - t;
  t = Date.now();
  await page.fill('#f-search', 'shfl');
  await page.press('#f-search', 'Enter');
  await page.waitForFunction(() => document.querySelector('#f-count').textContent.length > 0);
  const ms2 = Date.now() - t;
  t = Date.now();
  await page.press('#f-search', 'Escape');
  await page.keyboard.press('j');
  await page.waitForSelector('.hunk.focus');
  const ms3 = Date.now() - t;
  console.log(`10k report: stage filter ${ms1} ms, first search (builds the index) ${ms2} ms (${await page.textContent('#f-count')}), j to first hunk ${ms3} ms`);
  // Scroll to the bottom: more change headers are appended, still no hunk bodies.
  await page.fill('#f-search', '');
  await page.press('#f-search', 'Enter');
  const before = await page.locator('details.entry').count();
  await page.evaluate(() => document.getElementById('variants-section').scrollIntoView());
  await page.waitForTimeout(300);
  await page.evaluate(() => window.scrollBy(0, -3000));
  await page.waitForTimeout(300);
  check(await page.locator('details.entry').count() > before, 'scrolling renders more change headers');
  for (const p of problems) check(false, '10k clean page', p);
  await page.close();
}

function ksnap(args) {
  return execFileSync(env.KSNAP_BIN, args, {maxBuffer: 1 << 30});
}

const {ctx, profile} = await openBrowser();
const tmpDirs = [profile];
try {
  const pairs = [];
  if (env.KSNAP_CORPUS_DIR) pairs.push(['corpus', path.join(env.KSNAP_CORPUS_DIR, 'base'), path.join(env.KSNAP_CORPUS_DIR, 'no_licm')]);
  if (env.KSNAP_CORPUS_DIR) {
    // Variants on one side only: BASE without its first variant, HEAD without its last
    // (manifests cut down, the Triton cache folders copied: ksnap refuses a capture whose
    // paths go through a symbolic link leading out of the capture folder).
    const cut = (build, drop) => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), `ksnap-${build}-`));
      tmpDirs.push(dir);
      const m = JSON.parse(fs.readFileSync(path.join(env.KSNAP_CORPUS_DIR, build, 'manifest.json'), 'utf8'));
      m.entries.splice(drop === 'first' ? 0 : m.entries.length - 1, 1);
      fs.writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify(m));
      fs.cpSync(path.join(env.KSNAP_CORPUS_DIR, build, 'cache'), path.join(dir, 'cache'), {recursive: true});
      return dir;
    };
    pairs.push(['onesided', cut('base', 'first'), cut('no_licm', 'last')]);
  }
  if (env.KSNAP_EXAMPLE_DIR) {
    const dirs = fs.readdirSync(env.KSNAP_EXAMPLE_DIR).filter((d) => fs.existsSync(path.join(env.KSNAP_EXAMPLE_DIR, d, 'manifest.json'))).sort();
    if (dirs.length >= 2) pairs.push(['example', path.join(env.KSNAP_EXAMPLE_DIR, dirs[0]), path.join(env.KSNAP_EXAMPLE_DIR, dirs[1])]);
  }
  for (const [name, base, head] of pairs) {
    const html = path.join(OUT, `${name}.html`), json = path.join(OUT, `${name}.json`);
    ksnap(['diff', base, head, '--format', 'html', '-o', html]);
    ksnap(['diff', base, head, '--format', 'json', '-o', json]);
    const j = JSON.parse(fs.readFileSync(json, 'utf8'));
    await testReport(ctx, name, html, j);
    await testPhone(ctx, name, html, j);
  }
  if (env.HTML_BENCH && env.KSNAP_CORPUS_DIR) {
    const big = path.join(OUT, 'report-10k.html');
    console.log(execFileSync(env.HTML_BENCH, ['--corpus', env.KSNAP_CORPUS_DIR, '--variants', '10000', '--runs', '1', '--skip-json', '1', '--out', big]).toString().trimEnd());
    await testBig(ctx, big);
  }
} finally {
  await ctx.close();
  for (const d of tmpDirs) fs.rmSync(d, {recursive: true, force: true});
}
console.log(`${checks - failures} of ${checks} checks passed; screenshots in ${OUT}`);
process.exit(failures ? 1 : 0);
