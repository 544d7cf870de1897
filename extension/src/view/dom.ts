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

/** The child each container is to scroll to at the next frame. */
const scrollTargets = new WeakMap<HTMLElement, HTMLElement>();

/**
 * Scroll `container` (only it, not the page or the notebook around it) so
 * that `child` is in view.  `container` must be positioned (CSS), so that it
 * is the child's offset parent.  The scroll waits for the next frame: reading
 * a position lays out the page, which done once per change (a step redraws
 * several panes) costs far more than once per frame.
 */
export function scrollWithin(container: HTMLElement, child: HTMLElement): void {
  const pending = scrollTargets.has(container);
  scrollTargets.set(container, child);
  if (pending) {
    return;
  }
  requestAnimationFrame(() => {
    const target = scrollTargets.get(container);
    scrollTargets.delete(container);
    if (!target || !target.isConnected || !container.contains(target)) {
      return;
    }
    const top = target.offsetTop;
    const bottom = top + target.offsetHeight;
    if (top < container.scrollTop) {
      container.scrollTop = top - 8;
    } else if (bottom > container.scrollTop + container.clientHeight) {
      container.scrollTop = bottom - container.clientHeight + 8;
    }
  });
}
