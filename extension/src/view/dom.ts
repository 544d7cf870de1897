/**
 * DOM helpers.  Trace files are untrusted, so text from a trace only ever
 * reaches the page through `textContent` and attribute values: nothing here
 * sets `innerHTML`.
 */

export interface ElementOptions {
  className?: string;
  text?: string;
  title?: string;
  attrs?: Record<string, string>;
}

/** A new element with its class, text and attributes set safely. */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  options: ElementOptions = {},
  children: Array<Node | null> = []
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (options.className) {
    node.className = options.className;
  }
  if (options.text !== undefined) {
    node.textContent = options.text;
  }
  if (options.title !== undefined) {
    node.title = options.title;
  }
  for (const [name, value] of Object.entries(options.attrs ?? {})) {
    node.setAttribute(name, value);
  }
  for (const child of children) {
    if (child) {
      node.appendChild(child);
    }
  }
  return node;
}

/** Remove every child of `node`. */
export function clear(node: Node): void {
  while (node.firstChild) {
    node.removeChild(node.firstChild);
  }
}

/** Where a container is to scroll at the next frame: a child into view, or a run of children into its middle. */
interface ScrollTarget {
  first: HTMLElement;
  /** With `last`: the run from `first` to `last` is centred (if taller than the view, `focus` sits in its upper third). */
  last?: HTMLElement;
  focus?: HTMLElement;
}

/** The target each container is to scroll to at the next frame. */
const scrollTargets = new WeakMap<HTMLElement, ScrollTarget>();
/** How many containers wait to scroll (tests settle once none does). */
let scrollsWaiting = 0;

/** Whether a scroll asked for by `scrollWithin` or `scrollToMiddle` still waits for its frame. */
export function scrollPending(): boolean {
  return scrollsWaiting > 0;
}

/**
 * Scroll `container` (only it, not the page or the notebook around it) so
 * that `child` is in view.  The scroll waits for the next frame to be
 * painted: reading a position lays out the page, which done once per change
 * (a step redraws several panes) costs far more than once per frame.
 */
export function scrollWithin(container: HTMLElement, child: HTMLElement): void {
  scrollLater(container, { first: child });
}

/**
 * Scroll `container` so that the run of children from `first` to `last` sits
 * in its middle; a run taller than the view puts `focus` (by default `first`)
 * in its upper third, never scrolling past `first`.
 */
export function scrollToMiddle(container: HTMLElement, first: HTMLElement, last: HTMLElement, focus: HTMLElement = first): void {
  scrollLater(container, { first, last, focus });
}

function scrollLater(container: HTMLElement, target: ScrollTarget): void {
  const pending = scrollTargets.has(container);
  scrollTargets.set(container, target);
  if (pending) {
    return;
  }
  scrollsWaiting += 1;
  // After the frame is painted: the frame a step or a jump shows first does not
  // wait for a long list to be laid out.
  afterNextPaint(() => scrollToTarget(container, 2));
}

/**
 * Run `work` once the browser has painted the next frame: a frame callback
 * runs before the paint, a task queued from it after.
 */
export function afterNextPaint(work: () => void): void {
  requestAnimationFrame(() => setTimeout(work, 0));
}

/** Where `child`'s box starts in `container`'s scrolled content. */
function topWithin(container: HTMLElement, child: HTMLElement): number {
  // From the boxes on screen rather than `offsetTop`: the child may sit in a
  // contained chunk of the list, which then is its offset parent.
  return child.getBoundingClientRect().top - container.getBoundingClientRect().top + container.scrollTop;
}

/** The scroll position that shows `target` as asked, or null if it is shown already. */
function wantedScroll(container: HTMLElement, target: ScrollTarget): number | null {
  const top = topWithin(container, target.first);
  const view = container.clientHeight;
  if (target.last === undefined) {
    const bottom = top + target.first.offsetHeight;
    if (top < container.scrollTop) {
      return top - 8;
    }
    return bottom > container.scrollTop + view ? bottom - view + 8 : null;
  }
  const bottom = topWithin(container, target.last) + target.last.offsetHeight;
  const span = bottom - top;
  let wanted: number;
  if (span <= view - 16) {
    wanted = top - (view - span) / 2;
  } else {
    const focus = topWithin(container, target.focus ?? target.first);
    wanted = Math.max(top - 8, focus - view / 3);
  }
  wanted = Math.max(0, Math.min(wanted, container.scrollHeight - view));
  return Math.abs(wanted - container.scrollTop) > 1 ? wanted : null;
}

/**
 * Scroll `container` to its pending target.  Long lists skip the layout of
 * rows out of view (`content-visibility: auto`) and place them by an
 * estimated height, so once the rows around the target are laid out it may
 * have moved: then look again at the next frame, `tries` more times.
 */
function scrollToTarget(container: HTMLElement, tries: number): void {
  const target = scrollTargets.get(container);
  scrollTargets.delete(container);
  if (!target || !target.first.isConnected || !container.contains(target.first) ||
      (target.last !== undefined && !container.contains(target.last))) {
    scrollsWaiting -= 1;
    return;
  }
  const wanted = wantedScroll(container, target);
  if (wanted !== null) {
    container.scrollTop = wanted;
  }
  if (wanted !== null && tries > 0) {
    scrollTargets.set(container, target);
    afterNextPaint(() => {
      // A newer target set meanwhile is scrolled to from the start.
      if (scrollTargets.has(container)) {
        scrollToTarget(container, scrollTargets.get(container) === target ? tries - 1 : 2);
      } else {
        scrollsWaiting -= 1;
      }
    });
    return;
  }
  scrollsWaiting -= 1;
}

/**
 * How many characters of one text the viewer shows before asking: a trace may
 * hold a string of any length, and laying out megabytes of text in one line
 * freezes the page.
 */
export const SHOWN_CHARACTERS = 1000;

/**
 * Append `text` to `into`, cut at `limit` characters with a button that shows
 * the rest on demand.  `append` draws a piece of text (plain by default).
 */
export function appendClipped(
  into: HTMLElement,
  text: string,
  limit = SHOWN_CHARACTERS,
  append: (into: HTMLElement, text: string) => void = (node, piece) => node.append(piece)
): void {
  if (text.length <= limit) {
    append(into, text);
    return;
  }
  const head = el('span', { className: 'pv-clipped' });
  append(head, text.slice(0, limit));
  const more = el('button', {
    className: 'pv-show-all',
    text: `… ${(text.length - limit).toLocaleString('en')} more characters (show all)`,
    attrs: { type: 'button' }
  });
  more.addEventListener('click', event => {
    event.stopPropagation();
    clear(head);
    append(head, text);
    more.remove();
  });
  into.append(head, more);
}

/** An element holding `text`, clipped as `appendClipped` does. */
export function clippedEl<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  text: string,
  className = '',
  limit = SHOWN_CHARACTERS
): HTMLElementTagNameMap[K] {
  const node = el(tag, { className });
  appendClipped(node, text, limit);
  return node;
}

