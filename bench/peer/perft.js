// A check of othello.js's move generation and passes against Circles' perft counts.
'use strict';
const { flips, legalCells, startBoard } = require('./othello');
function perft(board, colour, depth, passed) {
  const cells = legalCells(board, colour);
  if (!cells.length) {
    if (passed) return 1; // neither can move: a finished game is one leaf
    return depth === 1 ? 1 : perft(board, 3 - colour, depth - 1, true);
  }
  if (depth === 1) return cells.length;
  let leaves = 0;
  for (const cell of cells) {
    const next = board.slice();
    next[cell] = colour;
    for (const other of flips(board, cell, colour)) next[other] = colour;
    leaves += perft(next, 3 - colour, depth - 1, false);
  }
  return leaves;
}
const want = [4, 12, 56, 244, 1396, 8200, 55092];
want.forEach((count, i) => {
  const got = perft(startBoard(), 1, i + 1, false);
  console.log(i + 1, got, got === count ? 'ok' : `WRONG (want ${count})`);
});
