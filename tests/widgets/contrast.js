/* The WCAG contrast ratio of every piece of text inside `root` against what lies behind it.
 * Used by tests/widgets/test_stepper_browser.py and tests/book/test_site_stepper.py:
 *   page.evaluate(CONTRAST_JS, element)  ->  [{text, ratio, colour, background}]
 * A text's background is the first opaque background of it or its ancestors (semi-transparent
 * ones are blended in); SVG text is coloured by its fill.
 */
(root) => {
  const parse = c => {
    const m = c.match(/rgba?\(([^)]+)\)/);
    if (!m) return null;
    const [r, g, b, a = 1] = m[1].split(/[ ,/]+/).filter(x => x).map(Number);
    return {r, g, b, a};
  };
  const luminance = ({r, g, b}) => {
    const lin = v => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
  };
  const over = (top, bottom) => ({
    r: top.r * top.a + bottom.r * (1 - top.a),
    g: top.g * top.a + bottom.g * (1 - top.a),
    b: top.b * top.a + bottom.b * (1 - top.a),
    a: 1,
  });
  const background = el => {
    const layers = [];
    for (let a = el; a; a = a.parentElement) {
      const c = parse(getComputedStyle(a).backgroundColor);
      if (c && c.a > 0) { layers.push(c); if (c.a >= 1) break; }
    }
    let colour = {r: 255, g: 255, b: 255, a: 1};  // the canvas
    if (layers.length && layers[layers.length - 1].a >= 1) colour = layers.pop();
    while (layers.length) colour = over(layers.pop(), colour);
    return colour;
  };
  const ratio = (a, b) => {
    const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
    return (hi + 0.05) / (lo + 0.05);
  };
  const show = c => `rgb(${Math.round(c.r)},${Math.round(c.g)},${Math.round(c.b)})`;
  const results = [];
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const text = node.textContent.trim();
    const el = node.parentElement;
    if (!text || !el || el.closest("script, style")) continue;
    const box = el.getBoundingClientRect(), style = getComputedStyle(el);
    if (!box.width || style.visibility === "hidden" || style.display === "none") continue;
    const svgText = el.closest("svg") !== null;
    const fg = parse(svgText ? style.fill : style.color);
    if (!fg) continue;
    const bg = background(svgText ? el.closest("svg") : el);
    const colour = fg.a < 1 ? over(fg, bg) : fg;
    results.push({text: text.slice(0, 40), ratio: ratio(colour, bg), colour: show(colour),
                  background: show(bg)});
  }
  for (const field of root.querySelectorAll("input[type=text], textarea")) {  // typed text
    const fg = parse(getComputedStyle(field).color), bg = background(field);
    if (fg && field.value) {
      results.push({text: field.value.slice(0, 40), ratio: ratio(fg, bg), colour: show(fg),
                    background: show(bg)});
    }
  }
  return results;
}
