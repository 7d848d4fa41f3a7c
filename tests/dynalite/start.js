// Starts dynalite on the loopback port given (0 or none: a free one) and
// prints the port. The CLI binds every interface and turns --port 0 into
// 4567, hence this script.
// It exits when its parent (the test process) closes its stdin.
const dynalite = require('dynalite');
const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
server.listen(Number(process.argv[2] || 0), '127.0.0.1', () => {
  process.stdout.write(server.address().port + '\n');
});
process.stdin.resume();
process.stdin.on('end', () => process.exit(0));
