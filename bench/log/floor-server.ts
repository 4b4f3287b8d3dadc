/**
 * The floor: a bare `node:http` server that reads each request body to its end and answers
 * 200 `{"message":"OK"}` without other work, with the service's keep-alive timeout. Prints
 * "listening <port>".
 */
import http from 'node:http';
import { serveFloor } from './serve-floor.js';

const OK = Buffer.from('{"message":"OK"}');
const HEADERS = { 'content-type': 'application/json; charset=utf-8', 'content-length': String(OK.length) };

const server = http.createServer({ keepAliveTimeout: 75_000 }, (request, response) => {
  request.on('end', () => {
    response.writeHead(200, HEADERS);
    response.end(OK);
  });
  request.resume();
});
serveFloor(server);
