/**
 * What jsdom lacks for the view tests, stood in for and nothing more.
 *
 * jsdom draws nothing on a canvas: `getContext('2d')` there is "not
 * implemented".  Cytoscape (the graph pane) and the minimap draw on one, so
 * `stubCanvas` gives every canvas a 2D context that records nothing: each
 * drawing call does nothing, `measureText` measures 6 pixels a character, and
 * gradients, paths and image data are empty.
 *
 * jsdom lays nothing out either: every element is 0 × 0, and Cytoscape draws
 * nothing into a container without a size.  `sizeGraphCanvas` gives the graph
 * pane's canvas (`.pv-graph-canvas`) a size; every other element keeps
 * jsdom's.
 *
 * jsdom has no `CSS` namespace: `escapeCss` adds `CSS.escape`, as CSSOM
 * specifies it.  The DOM the views build is jsdom's own.
 */

function context(canvas: HTMLCanvasElement): CanvasRenderingContext2D {
  const state: Record<string | symbol, unknown> = {
    canvas,
    measureText: (text: string) => ({ width: 6 * text.length, actualBoundingBoxAscent: 8, actualBoundingBoxDescent: 2 }),
    createLinearGradient: () => ({ addColorStop: () => undefined }),
    createRadialGradient: () => ({ addColorStop: () => undefined }),
    createPattern: () => ({}),
    getImageData: (_x: number, _y: number, w: number, h: number) => ({ width: w, height: h, data: new Uint8ClampedArray(4 * w * h) }),
    createImageData: (w: number, h: number) => ({ width: w, height: h, data: new Uint8ClampedArray(4 * w * h) }),
    getTransform: () => ({ a: 1, b: 0, c: 0, d: 1, e: 0, f: 0 }),
    isPointInPath: () => false,
    isPointInStroke: () => false,
    getLineDash: () => []
  };
  const nothing = (): undefined => undefined;
  return new Proxy(state, {
    get: (target, key) => (key in target ? target[key] : nothing),
    set: (target, key, value) => {
      target[key] = value;
      return true;
    }
  }) as unknown as CanvasRenderingContext2D;
}

/** A path that is never drawn: its building calls do nothing. */
class NoPath {
  addPath(): void {}
  closePath(): void {}
  moveTo(): void {}
  lineTo(): void {}
  bezierCurveTo(): void {}
  quadraticCurveTo(): void {}
  arc(): void {}
  arcTo(): void {}
  ellipse(): void {}
  rect(): void {}
  roundRect(): void {}
}

/** Give every canvas of the test's document a 2D context that draws nothing (and `Path2D`, its paths). */
export function stubCanvas(): void {
  (globalThis as unknown as { Path2D: unknown }).Path2D ??= NoPath;
  const contexts = new WeakMap<HTMLCanvasElement, CanvasRenderingContext2D>();
  HTMLCanvasElement.prototype.getContext = function (this: HTMLCanvasElement, kind: string) {
    if (kind !== '2d') {
      return null;
    }
    if (!contexts.has(this)) {
      contexts.set(this, context(this));
    }
    return contexts.get(this)!;
  } as typeof HTMLCanvasElement.prototype.getContext;
}

/** The size `sizeGraphCanvas` gives the graph pane's canvas. */
export const GRAPH_SIZE = { width: 800, height: 600 };

/** Give every `.pv-graph-canvas` element a size of `GRAPH_SIZE`, at the page's top left, without padding or border. */
export function sizeGraphCanvas(): void {
  const sheet = document.createElement('style');
  sheet.textContent = '.pv-graph-canvas { padding: 0px; border: 0px solid black; }';
  document.head.appendChild(sheet);
  const graph = (element: Element): boolean => element.classList.contains('pv-graph-canvas');
  const proto = HTMLElement.prototype;
  const width = Object.getOwnPropertyDescriptor(Element.prototype, 'clientWidth')!;
  const height = Object.getOwnPropertyDescriptor(Element.prototype, 'clientHeight')!;
  const rect = Element.prototype.getBoundingClientRect;
  Object.defineProperty(proto, 'clientWidth', {
    configurable: true,
    get(this: HTMLElement) {
      return graph(this) ? GRAPH_SIZE.width : width.get!.call(this);
    }
  });
  Object.defineProperty(proto, 'clientHeight', {
    configurable: true,
    get(this: HTMLElement) {
      return graph(this) ? GRAPH_SIZE.height : height.get!.call(this);
    }
  });
  proto.getBoundingClientRect = function (this: HTMLElement): DOMRect {
    if (!graph(this)) {
      return rect.call(this);
    }
    const { width: w, height: h } = GRAPH_SIZE;
    return { x: 0, y: 0, left: 0, top: 0, width: w, height: h, right: w, bottom: h, toJSON: () => ({}) } as DOMRect;
  };
}

/** `CSS.escape` as CSSOM specifies it (https://drafts.csswg.org/cssom/#serialize-an-identifier). */
function cssEscape(value: string): string {
  const text = String(value);
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    const char = text.charAt(i);
    if (code === 0) {
      out += '\uFFFD';
    } else if ((code >= 0x1 && code <= 0x1f) || code === 0x7f || (i === 0 && code >= 0x30 && code <= 0x39) ||
      (i === 1 && code >= 0x30 && code <= 0x39 && text.charCodeAt(0) === 0x2d)) {
      out += `\\${code.toString(16)} `;
    } else if (i === 0 && text.length === 1 && code === 0x2d) {
      out += `\\${char}`;
    } else if (code >= 0x80 || code === 0x2d || code === 0x5f || /[0-9A-Za-z]/.test(char)) {
      out += char;
    } else {
      out += `\\${char}`;
    }
  }
  return out;
}

/** Give the window the `CSS` namespace's `escape`, which jsdom lacks. */
export function escapeCss(): void {
  const scope = globalThis as unknown as { CSS?: { escape?: (value: string) => string } };
  scope.CSS ??= {};
  scope.CSS.escape ??= cssEscape;
}
