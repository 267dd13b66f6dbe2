// boardgame.io's Server for the Othello of othello.js on its PostgreSQL adapter (bgio-postgres),
// as bench/socket_moves.py starts it: `node server.js PORT DATABASE_URL`. Its Lobby API
// (create/join a match) and its socket.io namespace /othello share PORT.
'use strict';

const { Server } = require('boardgame.io/server');
const { PostgresStore } = require('bgio-postgres');
const { Othello } = require('./othello');

const [port, databaseUrl] = process.argv.slice(2);
const db = new PostgresStore(databaseUrl, { logging: false });
const server = Server({ games: [Othello], db });
server.run(Number(port), () => console.log(`boardgame.io peer on ${port}`));
