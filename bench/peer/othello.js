// Othello for boardgame.io, played by the same rules as our Circles (rules/circles.md): 8x8,
// player "0" (white) moves first from d4 e5 white / d5 e4 black, a player with no legal move
// passes automatically, the game ends when neither can move, more discs wins.
// The board is 64 cells, a1 = 0 top-left, row by row: 0 empty, 1 white ("0"), 2 black ("1").
'use strict';

const { INVALID_MOVE } = require('boardgame.io/core');

const DIRECTIONS = [
  [-1, -1], [-1, 0], [-1, 1],
  [0, -1], [0, 1],
  [1, -1], [1, 0], [1, 1],
];

const colourOf = (playerID) => (playerID === '0' ? 1 : 2);

/** The cells `colour` flips by playing `cell` (none if the move is illegal). */
function flips(board, cell, colour) {
  if (board[cell] !== 0) return [];
  const row = Math.floor(cell / 8);
  const col = cell % 8;
  const flipped = [];
  for (const [dr, dc] of DIRECTIONS) {
    const line = [];
    let r = row + dr;
    let c = col + dc;
    while (r >= 0 && r < 8 && c >= 0 && c < 8 && board[r * 8 + c] === 3 - colour) {
      line.push(r * 8 + c);
      r += dr;
      c += dc;
    }
    if (line.length && r >= 0 && r < 8 && c >= 0 && c < 8 && board[r * 8 + c] === colour) {
      flipped.push(...line);
    }
  }
  return flipped;
}

function legalCells(board, colour) {
  const cells = [];
  for (let cell = 0; cell < 64; cell++) {
    if (flips(board, cell, colour).length) cells.push(cell);
  }
  return cells;
}

const hasMove = (board, colour) => {
  for (let cell = 0; cell < 64; cell++) {
    if (flips(board, cell, colour).length) return true;
  }
  return false;
};

function startBoard() {
  const board = Array(64).fill(0);
  board[3 * 8 + 3] = board[4 * 8 + 4] = 1; // d4, e5 white
  board[4 * 8 + 3] = board[3 * 8 + 4] = 2; // d5, e4 black
  return board;
}

const Othello = {
  name: 'othello',
  minPlayers: 2,
  maxPlayers: 2,

  setup: () => ({ board: startBoard() }),

  moves: {
    place: ({ G, playerID }, cell) => {
      const colour = colourOf(playerID);
      const flipped = Number.isInteger(cell) ? flips(G.board, cell, colour) : [];
      if (!flipped.length) return INVALID_MOVE;
      G.board[cell] = colour;
      for (const other of flipped) G.board[other] = colour;
    },
  },

  turn: {
    minMoves: 1,
    maxMoves: 1,
    order: {
      first: () => 0,
      // The opponent moves next if it can; otherwise it passes and the mover goes again (when
      // neither can, endIf has already ended the game).
      next: ({ G, ctx }) => {
        const opponent = (ctx.playOrderPos + 1) % ctx.numPlayers;
        return hasMove(G.board, colourOf(ctx.playOrder[opponent])) ? opponent : ctx.playOrderPos;
      },
    },
  },

  endIf: ({ G }) => {
    if (hasMove(G.board, 1) || hasMove(G.board, 2)) return undefined;
    const white = G.board.filter((disc) => disc === 1).length;
    const black = G.board.filter((disc) => disc === 2).length;
    if (white === black) return { draw: true, white, black };
    return { winner: white > black ? '0' : '1', white, black };
  },
};

module.exports = { Othello, flips, legalCells, colourOf, startBoard };
