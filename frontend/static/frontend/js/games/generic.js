// Fallback renderer for a game kind without a page of its own yet: shows the view as JSON.

export function mount(container) {
  const pre = document.createElement("pre");
  pre.className = "generic-view";
  container.append(pre);
  return {
    render(envelope) {
      pre.textContent = JSON.stringify(envelope.state, null, 2);
    },
    describeMove(entry) {
      const { number, seat, at, ...rest } = entry;
      return `${number}. seat ${seat + 1}: ${JSON.stringify(rest)}`;
    },
  };
}
