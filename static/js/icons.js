// Small inline icons (drawn for this project), so the controls need no icon font or emoji font.

const svg = (body) =>
  `<svg class="cg-icon" viewBox="0 0 24 24" width="20" height="20" aria-hidden="true" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round">${body}</svg>`;

export const ICONS = {
  flip: svg('<path d="M7 4v15M7 4 3.5 7.5M7 4l3.5 3.5M17 20V5M17 20l-3.5-3.5M17 20l3.5-3.5"/>'),
  undo: svg('<path d="M9 14 4 9l5-5"/><path d="M4 9h10.5a5.5 5.5 0 0 1 0 11H11"/>'),
  plus: svg('<path d="M12 5v14M5 12h14"/>'),
  soundOn: svg('<path d="M4 9.5h3.5L12 5.5v13l-4.5-4H4z" fill="currentColor" stroke-width="1.5"/><path d="M15.5 9a4 4 0 0 1 0 6M18 6.5a7.5 7.5 0 0 1 0 11"/>'),
  // Online play.
  flag: svg('<path d="M6 21V4"/><path d="M6 4.5c3.5-2 6.5 2 11 0v9c-4.5 2-7.5-2-11 0" fill="currentColor" fill-opacity="0.25"/>'),
  cross: svg('<path d="M6 6l12 12M18 6 6 18"/>'),
  half: svg('<path d="M5 19 19 5"/><path d="M5.5 5.5h2.5v6" /><path d="M14 14.5h4.5l-4.5 5h4.5" />'),
  rematch: svg('<path d="M4 12a8 8 0 0 1 13.7-5.6L20 8.5"/><path d="M20 3.5v5h-5"/><path d="M20 12a8 8 0 0 1-13.7 5.6L4 15.5"/><path d="M4 20.5v-5h5"/>'),
  copy: svg('<rect x="8.5" y="8.5" width="11" height="11" rx="2"/><path d="M15.5 8.5V6a1.5 1.5 0 0 0-1.5-1.5H6A1.5 1.5 0 0 0 4.5 6v8A1.5 1.5 0 0 0 6 15.5h2.5"/>'),
  check: svg('<path d="m5 12.5 4.5 4.5L19 7.5"/>'),
  // Replay: first, previous, next, last.
  first: svg('<path d="M6 5v14"/><path d="M18 5 9 12l9 7z" fill="currentColor"/>'),
  prev: svg('<path d="M16 5 7 12l9 7z" fill="currentColor"/>'),
  next: svg('<path d="M8 5l9 7-9 7z" fill="currentColor"/>'),
  last: svg('<path d="M18 5v14"/><path d="M6 5l9 7-9 7z" fill="currentColor"/>'),
  soundOff: svg('<path d="M4 9.5h3.5L12 5.5v13l-4.5-4H4z" fill="currentColor" stroke-width="1.5"/><path d="m16 9.5 5 5M21 9.5l-5 5"/>'),
};
