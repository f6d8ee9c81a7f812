// SPDX-License-Identifier: MIT
/* The help pages: `rdmapush --help`'s overview and each command's own
 * (its synopsis, options, examples and exit statuses, nothing of the
 * others'), found by name for `rdmapush help CMD`. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "rdmapush/opts.h"
#include "opts_int.h"

/* Each line at most 68 columns: the text stays inside 80 on a terminal. */
static const char help_overview[] =
	"Usage: rdmapush recv [OPTION]...\n"
	"       rdmapush send [OPTION]... SOURCE... HOST\n"
	"       rdmapush send [OPTION]... --hosts FILE SOURCE...\n"
	"       rdmapush keygen [--] FILE\n"
	"       rdmapush devices [--for HOST] [--json] [-d DEV]\n"
	"       rdmapush ping --server | rdmapush ping [OPTION]... HOST\n"
	"       rdmapush doctor [OPTION]... [HOST]\n"
	"       rdmapush render SENDER.jsonl RECEIVER.jsonl... [FILE.pcap]\n"
	"                       -o FILE.svg\n"
	"       rdmapush render --packets FILE.pcap\n"
	"       rdmapush help [send|recv|keygen|devices|ping|doctor|render|\n"
	"                      help]\n"
	"       rdmapush --help | --version\n"
	"\n"
	"Push files and directories from one machine to another over RDMA,\n"
	"with the safety of scp: the data is checked end to end (XXH3-128),\n"
	"each file appears under its name only once complete, verified and\n"
	"on disk, and nothing is written outside the receiver's directory.\n"
	"\n"
	"Commands:\n"
	"  recv           receive pushed files into a directory\n"
	"  send           push files, directories (-r) or standard input\n"
	"                 to the receiver on HOST, in one session\n"
	"  keygen FILE    write a new random key for --psk into FILE\n"
	"  devices        show the RDMA devices, ports and GIDs, and with\n"
	"                 --for HOST the GID rdmapush would use for HOST\n"
	"  ping           measure RDMA round-trip latency (--server: answer)\n"
	"  doctor         check this host for RDMA, and with HOST the path\n"
	"                 to it; each problem with the command that fixes it\n"
	"  render         draw two --trace-json files as one SVG picture\n"
	"  help [CMD]     show this help, or that of a command\n"
	"\n"
	"Options:\n"
	"  -h, --help     show this help and exit\n"
	"  -V, --version  show the version and exit\n";

static const char help_recv[] =
	"Usage: rdmapush recv [OPTION]...\n"
	"\n"
	"Listen on a TCP port and store what each sender pushes in DIR, each\n"
	"session in its own process, until SIGINT or SIGTERM (or after one\n"
	"session with --once). Data lands by RDMA Write in a ring of window\n"
	"x chunk bytes, is written to a temporary file, and each file gets\n"
	"its name only once its size and checksum match and it is synced.\n"
	"Paths are relative to DIR, each component a plain name (not '.'\n"
	"or '..', no control characters, at most 255 bytes); directories\n"
	"are created one level at a time and symbolic links are never\n"
	"followed. A new file gets the sender's permission bits masked by\n"
	"this process's umask (exactly, with the sender's -k and\n"
	"--preserve-modes), never an owner, and no setuid, setgid or sticky\n"
	"bit without the sender's -k and --keep-setid.\n"
	"A failed file is reported and the session goes on.\n"
	"\n"
	"Options:\n"
	"  -p, --port PORT      TCP port to listen on (default 18500)\n"
	"  -b, --bind ADDR      address to listen on (default: all)\n"
	"  -o, --dir DIR        store files in DIR (default: the current\n"
	"                       directory)\n"
	"  -1, --once           exit after one transfer, with its result\n"
	"  -f, --force          replace an existing file or symbolic link of\n"
	"                       the same name (never a directory)\n"
	"  -m, --max-transfers N  transfers at once, 1..64 (default 4); one\n"
	"                       more sender is told the receiver is busy\n"
	"      --max-size SIZE  refuse files larger than SIZE, with an\n"
	"                       optional K, M or G suffix (default: no limit)\n"
	"      --no-device-check  start without an active RDMA port (one\n"
	"                       that comes up later); each transfer then\n"
	"                       checks for itself\n"
	"      --max-per-address N  connections from one address, 1..64\n"
	"                       (default 8), whether in\n"
	"                       their handshake or transferring; one more is\n"
	"                       refused as busy\n"
	"      --max-pending-per-prefix N  connections in their handshake\n"
	"                       from one IPv4 /24 or IPv6 /64, 1..64\n"
	"                       (default 16); one more is refused as busy\n"
	"      --max-xfers-per-address N  transfers from one address at\n"
	"                       once, 1..64 (default: half of -m, rounded\n"
	"                       up); one more is refused as busy\n"
	"      --min-rate RATE  end a transfer whose sender moves less than\n"
	"                       RATE bytes a second (K, M or G suffix) over\n"
	"                       60 s of waiting for it (default 64K; 0: no\n"
	"                       floor)\n"
	"      --keep-setid     keep the setuid, setgid and sticky bits a\n"
	"                       sender's -k asks for (default: dropped)\n"
	"      --preserve-modes  give what a sender's -k sends its exact\n"
	"                       permission bits (default: masked by the\n"
	"                       umask, and no world-writable directory\n"
	"                       without the sticky bit)\n"
	"      --no-partials    keep nothing of a file whose push stopped\n"
	"                       (default: its verified part is kept hidden\n"
	"                       as .NAME.rdmapush-partial, with a journal,\n"
	"                       for the sender's --resume)\n"
	"      --partial-max-age AGE  remove kept partials older than AGE,\n"
	"                       seconds or with s, m, h or d (default 7d),\n"
	"                       at start-up and while serving\n"
	"      --relay          forward a sender's chain to the next host\n"
	"                       (default: a chain is refused)\n";

static const char help_send[] =
	"Usage: rdmapush send [OPTION]... SOURCE... HOST\n"
	"       rdmapush send [OPTION]... --hosts FILE SOURCE...\n"
	"\n"
	"Push each SOURCE to the receiver listening on HOST (a name or an\n"
	"address), all in one session over one queue pair (or --qps of\n"
	"them): a regular file lands under its last component, a directory\n"
	"(with -r) as a tree under its own name, as scp -r does, and '-'\n"
	"(standard input, with --as) as NAME. Symbolic links, devices,\n"
	"FIFOs and sockets in a tree are skipped and counted; a symbolic\n"
	"link named as a SOURCE is followed. The data moves as RDMA Writes\n"
	"(or, with --op, RDMA Reads or Sends), a window of chunks in\n"
	"flight; small files are pipelined. Each file counts once the\n"
	"receiver has verified its checksum and synced it to disk; a failed\n"
	"file is reported and the others go on, and the exit status is then\n"
	"that of the first failure.\n"
	"HOST may be a host list, as Slurm writes it: node[01-03], a,b,c,\n"
	"a:18600,b (a host without :PORT takes --port). With more than one\n"
	"host the push is a chain: the first host is told the others, and\n"
	"each one but the last must run 'rdmapush recv --relay' to pass\n"
	"it on.\n"
	"\n"
	"Options:\n"
	"  -p, --port PORT      the receiver's TCP port (default 18500)\n"
	"      --hosts FILE     the hosts, one host or host list a line ('#'\n"
	"                       comments); then every argument is a SOURCE\n"
	"  -r, --recursive      send directories and everything in them\n"
	"  -k, --preserve       keep each file's mode and modification time\n"
	"                       (k for keep: -p is the port)\n"
	"      --resume         continue each file from what the receiver\n"
	"                       kept of an earlier push that stopped: both\n"
	"                       sides check the kept part's digest, and\n"
	"                       only the rest is sent (not with '-')\n"
	"      --update[=LEVEL]  send a file only if the receiver's copy\n"
	"                       differs: exists (it has one), size, mtime\n"
	"                       (the default: size and mtime; implies -k)\n"
	"                       or checksum (its digest; each file is read\n"
	"                       here first). A differing copy is replaced,\n"
	"                       atomically, even without the receiver's -f\n"
	"      --as NAME        name on the receiver of the one SOURCE\n"
	"                       (default: its last component); required for\n"
	"                       '-'\n"
	"      --op OP          how the chunks move: write (the default: RDMA\n"
	"                       Write into the receiver's ring), read (the\n"
	"                       receiver RDMA-Reads ours) or send (two-sided\n"
	"                       Send into receives it keeps posted; no rkey\n"
	"                       is exposed)\n"
	"      --qps N          stripe the chunks over N RC queue pairs,\n"
	"                       1..8 (default 1): chunk n goes on QP n mod N\n"
	"  -c, --chunk SIZE     bytes per RDMA Write, 4K..64M, with an\n"
	"                       optional K, M or G suffix (default 1M)\n"
	"  -w, --window N       chunks in flight, 1..64 (default 8); chunk x\n"
	"                       window, at most 256M, is about the memory\n"
	"                       each side pins. Every file takes a chunk of\n"
	"                       its own: for files of 64K or less on average\n"
	"                       the defaults are 64K x 64\n";

static const char help_keygen[] =
	"Usage: rdmapush keygen [--] FILE\n"
	"\n"
	"Write 32 random bytes into the new file FILE, readable by its owner\n"
	"only (mode 0600), for use with --psk FILE on both sides. An\n"
	"existing FILE is never replaced.\n"
	"\n"
	"Options:\n"
	"  -h, --help           show this help and exit\n"
	"\n"
	"Examples:\n"
	"  host-a$ rdmapush keygen ~/.rdmapush.key\n"
	"  host-a$ scp -p ~/.rdmapush.key host-b:\n"
	"  host-b$ rdmapush recv --psk ~/.rdmapush.key -o /srv/in\n"
	"  host-a$ rdmapush send --psk ~/.rdmapush.key big.iso host-b\n"
	"\n"
	"Exit status:\n"
	"  0  the key is written\n"
	"  1  internal error\n"
	"  2  usage error, or FILE exists\n"
	"  5  FILE cannot be created or written\n";

static const char help_devices[] =
	"Usage: rdmapush devices [--for HOST] [OPTION]...\n"
	"\n"
	"Show each RDMA device (node GUID, firmware, the main limits of\n"
	"ibv_query_device), each port (state, link layer, MTU, speed, LID)\n"
	"and each port's GID table: index, type (IB, RoCE v1, RoCE v2),\n"
	"address and network interface.\n"
	"\n"
	"Options:\n"
	"      --for HOST       mark the GID a transfer to or from HOST would\n"
	"                       use, chosen as send and recv choose it, and\n"
	"                       say why (no packet is sent to HOST)\n"
	"  -d, --device DEV     only this device\n"
	"  -i, --ib-port N      with --for: only this port, as for send\n"
	"  -g, --gid-index N    with --for: this GID index, as for send\n"
	"  -J, --json           one JSON object on stdout\n"
	"  -t, --trace          with --for: show each step of the choice\n"
	"  -h, --help           show this help and exit\n"
	"\n"
	"Examples:\n"
	"  $ rdmapush devices\n"
	"  $ rdmapush devices --for 192.0.2.10\n"
	"  $ rdmapush devices --json -d rxe0\n"
	"\n"
	"Exit status:\n"
	"  0  listed (and with --for, a GID found)\n"
	"  2  usage error\n"
	"  4  no RDMA device, no device DEV, HOST does not resolve or has\n"
	"     no route, or no GID fits HOST\n"
	"  5  standard output cannot be written\n";

static const char help_doctor[] =
	"Usage: rdmapush doctor [OPTION]... [HOST]\n"
	"\n"
	"Check what RDMA needs on this host, one line per check: a device\n"
	"(or else rdma_rxe and the interface it could go on), each port's\n"
	"state, its RoCE MTU against its interface's MTU, a routable RoCE v2\n"
	"GID, the locked-memory limit (ulimit -l) against a transfer's\n"
	"ring, and whether the receiver's TCP port is free or who holds it.\n"
	"With HOST also: the GID a push to HOST would use, whether HOST's\n"
	"receiver and ping server ports answer, and with a ping server\n"
	"(rdmapush ping --server on HOST) one RDMA round trip for --op send\n"
	"and one for --op write, HOST's GID and RoCE MTU and whether it\n"
	"matches ours. A file receiver answers no ping: then the RDMA path\n"
	"is not tried, and a note says so. Each problem is one line: what\n"
	"is wrong, why it matters, and the command that fixes it.\n"
	"\n"
	"Options:\n"
	"  -p, --port PORT      the receiver's TCP port (default 18500)\n"
	"      --ping-port PORT HOST's ping server (default: PORT + 1)\n"
	"  -d, --device DEV     only this device\n"
	"  -i, --ib-port N      only this port, as for send\n"
	"  -g, --gid-index N    this GID index, as for send\n"
	"  -T, --timeout SEC    bound of each probe of HOST (default 5)\n"
	"      --psk FILE       the ping server's key file, if it has one\n"
	"  -J, --json           one JSON object on stdout\n"
	"  -t, --trace          show each step of the probes\n"
	"  -h, --help           show this help and exit\n"
	"\n"
	"Examples:\n"
	"  $ rdmapush doctor\n"
	"  host-b$ rdmapush recv & rdmapush ping --server &\n"
	"  host-a$ rdmapush doctor host-b\n"
	"\n"
	"Exit status:\n"
	"  0  no problem found (ok lines, notes and warnings only)\n"
	"  1  internal error, or standard output cannot be written\n"
	"  2  usage error\n"
	"  4  at least one problem found (the lines that say \"error\")\n";

static const char help_common[] =
	"  -d, --device DEV     RDMA device, e.g. mlx5_0 or rxe0 (default:\n"
	"                       the one with the control connection's\n"
	"                       address)\n"
	"  -i, --ib-port N      device port, 1..255 (default: an active one)\n"
	"  -g, --gid-index N    GID index, 0..255 (default: the RoCE v2 GID\n"
	"                       of the control connection's address)\n"
	"  -T, --timeout SEC    give up when the peer makes no progress for\n"
	"                       SEC seconds, 1..86400 (default 30)\n"
	"      --retry-for SEC  when the RDMA link goes down while the\n"
	"                       control connection lives, bring up fresh\n"
	"                       queue pairs and carry on, for up to SEC\n"
	"                       seconds, 0..86400 (default 60; 0: fail at\n"
	"                       once)\n"
	"      --psk FILE       authenticate the peer with the pre-shared\n"
	"                       key in FILE; both sides use the same key\n"
	"      --threads N      worker threads that read, hash and write the\n"
	"                       chunks, 1..64 (default: one per core, at\n"
	"                       most 8)\n"
	"      --direct         file data bypasses the page cache (O_DIRECT)\n"
	"                       on this side's disk; where the file system\n"
	"                       refuses it, a note and buffered I/O\n"
	"  -t, --trace          explain every step (verbs, control messages,\n"
	"                       data) on stderr\n"
	"      --trace-json FILE\n"
	"                       write every trace event to FILE, one JSON\n"
	"                       object per line (docs/trace.md); with or\n"
	"                       without --trace\n"
	"      --capture FILE.pcap\n"
	"                       write this side's RoCE v2 packets of the\n"
	"                       session to FILE (needs CAP_NET_RAW); read\n"
	"                       it with 'rdmapush render --packets'\n"
	"  -J, --json           print each transfer's result as one JSON\n"
	"                       object on stdout (combines with --trace)\n"
	"  -q, --quiet          print errors only (not with --trace)\n"
	"  -h, --help           show this help and exit\n";

static const char help_example[] =
	"Examples:\n"
	"  host-b$ rdmapush recv -o /srv/in\n"
	"  host-a$ rdmapush send big.iso 192.0.2.10\n"
	"  host-a$ rdmapush send -r -k photos/ notes.txt 192.0.2.10\n"
	"  host-a$ tar c src | rdmapush send --as src.tar - 192.0.2.10\n";

static const char help_exit[] =
	"Exit status:\n"
	"  0  success: every file is verified and on the receiver's disk\n"
	"     (skipped symbolic links and special files do not count)\n"
	"  1  internal error\n"
	"  2  usage or configuration error (command line, key file)\n"
	"  3  refused by the peer, or a protocol error\n"
	"  4  peer, network or RDMA failure, or timeout\n"
	"  5  local I/O error (reading or writing the file)\n"
	"  6  refused by policy: file exists, bad name, too big or no space,\n"
	"     or a chain's first host does not relay\n"
	"  (when some files fail and the others arrive: the first failure's)\n"
	"  7  the receiver cannot listen: port in use, not allowed, or an\n"
	"     address not of this host\n"
	"  130, 143  stopped by SIGINT or SIGTERM\n";

static const char help_security[] =
	"Security: without --psk, anyone who can reach the receiver's port\n"
	"can push files into its directory. RDMA traffic is not encrypted.\n";


static const char help_ping[] =
	"Usage: rdmapush ping --server [-p PORT] [-b ADDR] [--once]\n"
	"                     [--psk FILE]\n"
	"       rdmapush ping [-n N] [-s SIZE] [--op send|write] [--psk FILE]\n"
	"                     HOST\n"
	"\n"
	"Measure the round-trip latency between two hosts over one RC queue\n"
	"pair, set up by the same handshake as a push. --op send (default):\n"
	"the client Sends SIZE bytes into a receive posted ahead, the server\n"
	"Sends them back. --op write: each side RDMA-Writes SIZE bytes into\n"
	"the other's buffer and spins on the last byte, as ib_write_lat\n"
	"does. Both sides busy-poll. The client prints the min, median, p99\n"
	"and max round trip, and half of each as the one-way estimate that\n"
	"perftest's ib_*_lat print. The server answers each client in a\n"
	"process of its own, up to 4 pings at once, each within 60 s of its\n"
	"HELLO, until SIGINT or SIGTERM; a file receiver refuses a ping, and\n"
	"a ping server a push.\n"
	"\n"
	"Options:\n"
	"      --server         answer pings instead of sending them\n"
	"  -p, --port PORT      TCP port (default 18501: the receiver's\n"
	"                       18500 + 1, so both can run on one host)\n"
	"  -b, --bind ADDR      server: address to listen on (default: all)\n"
	"  -1, --once           server: exit after one ping (past --psk's\n"
	"                       AUTH and its HELLO), with its result\n"
	"  -n, --iterations N   round trips, 1..1000000 (default 1000)\n"
	"  -s, --size SIZE      bytes each way, 1..1M (default 2, as\n"
	"                       perftest)\n"
	"      --op OP          send (default) or write\n"
	"  -d, --device DEV     RDMA device (default: the one with the\n"
	"                       control connection's address)\n"
	"  -i, --ib-port N      device port, 1..255\n"
	"  -g, --gid-index N    GID index, 0..255\n"
	"  -T, --timeout SEC    give up after SEC seconds without a round\n"
	"                       trip, 1..86400 (default 30)\n"
	"      --psk FILE       authenticate the peer with the pre-shared\n"
	"                       key in FILE (rdmapush keygen), as a push\n"
	"                       does; both sides use the same key\n"
	"  -t, --trace          explain the handshake and verbs steps\n"
	"      --trace-json FILE  the same steps as JSON lines in FILE\n"
	"                       (docs/trace.md)\n"
	"      --capture FILE.pcap  the session's RoCE v2 packets, written\n"
	"                       to FILE (needs CAP_NET_RAW)\n"
	"  -J, --json           one JSON object: op, size, iterations,\n"
	"                       rtt_us and one_way_us {min,median,p99,max}\n"
	"  -q, --quiet          print errors only\n"
	"  -h, --help           show this help and exit\n"
	"\n"
	"Examples:\n"
	"  host-b$ rdmapush ping --server\n"
	"  host-a$ rdmapush ping 192.0.2.10\n"
	"  host-a$ rdmapush ping --op write -s 4K -n 10000 192.0.2.10\n"
	"\n"
	"Exit status:\n"
	"  0  every round trip answered (server: stopped by a signal, or\n"
	"     with --once its one ping answered)\n"
	"  2  usage error, or a --psk key file that will not do\n"
	"  3  refused: HOST is a file receiver (rdmapush recv), not a ping\n"
	"     server, the peer broke the protocol, or the --psk keys differ\n"
	"     (or only one side has one)\n"
	"  4  peer, network or RDMA failure, or timeout\n"
	"  6  the server ended the ping at its 60 s cap\n"
	"  7  the server cannot listen on its port\n"
	"  130, 143  stopped by SIGINT or SIGTERM\n";


static const char help_render[] =
	"Usage: rdmapush render SENDER.jsonl RECEIVER.jsonl... [FILE.pcap]\n"
	"                       -o FILE.svg\n"
	"       rdmapush render --packets FILE.pcap\n"
	"\n"
	"Merge the sender's and the receiver's --trace-json files of one\n"
	"session into one standalone SVG sequence diagram (no script, no\n"
	"network: any browser shows it): two lifelines, each QP's state\n"
	"(RESET, INIT, RTR, RTS, ERROR) as a coloured band, the objects\n"
	"created and destroyed, the control messages as arrows with their\n"
	"QPN, PSN and rkey, and the data phase summarised. The two clocks\n"
	"are unrelated: rows follow the messages. FILE is replaced whole.\n"
	"A chain's traces (up to 8, one per host, the sender's first, then\n"
	"each receiver's in chain order; a relay's holds both its sessions)\n"
	"draw one lifeline per host, each pair of hosts' rows in turn.\n"
	"A --capture of the session beside its two traces adds the packets\n"
	"on the wire below: each message's packets as one arrow (count, PSN\n"
	"range), tied to the verbs post it came from; ACKs and NAKs back.\n"
	"\n"
	"Options:\n"
	"  -o, --output FILE    write the SVG to FILE ('-': standard output)\n"
	"  --packets FILE.pcap  print each RoCE v2 packet of a --capture as\n"
	"                       one line: seconds, addresses, opcode, QP,\n"
	"                       PSN, A bit, RETH, AETH, ImmDt, data bytes\n"
	"  -h, --help           show this help and exit\n"
	"\n"
	"Examples:\n"
	"  host-b$ rdmapush recv --once --trace-json recv.jsonl\n"
	"  host-a$ rdmapush send --trace-json send.jsonl big.iso 192.0.2.10\n"
	"  $ rdmapush render send.jsonl recv.jsonl -o push.svg\n"
	"  $ rdmapush render a.jsonl b.jsonl c.jsonl -o chain.svg\n"
	"  $ rdmapush render send.jsonl recv.jsonl send.pcap -o wire.svg\n"
	"\n"
	"Exit status:\n"
	"  0  written\n"
	"  2  usage error\n"
	"  3  a trace line that is not JSON, lacks v or kind, or has\n"
	"     another schema version; or two traces that do not pair\n"
	"     (a chain's: a middle one without a relay session, or out\n"
	"     of order)\n"
	"  5  a trace unreadable, or FILE not writable\n";

static const char help_help[] =
	"Usage: rdmapush help [CMD]\n"
	"\n"
	"Show the help page of CMD (send, recv, keygen, devices, ping,\n"
	"render or help), as 'rdmapush CMD --help' does; without CMD, the\n"
	"overview of the commands.\n"
	"\n"
	"Examples:\n"
	"  $ rdmapush help\n"
	"  $ rdmapush help send\n"
	"\n"
	"Exit status:\n"
	"  0  shown\n"
	"  2  usage error: no such CMD\n";

/* The push's pages (send, recv) share the options, examples and exit
 * statuses of a transfer; the overview repeats them for both. */
static const char *const page_overview[] = {
	help_overview, "\n", help_example, "\n", help_exit, "\n",
	help_security, NULL
};
static const char *const page_send[] = {
	help_send, help_common, "\n", help_example, "\n", help_exit, "\n",
	help_security, NULL
};
static const char *const page_recv[] = {
	help_recv, help_common, "\n", help_example, "\n", help_exit, "\n",
	help_security, NULL
};
static const char *const page_keygen[] = { help_keygen, NULL };
static const char *const page_devices[] = { help_devices, NULL };
static const char *const page_ping[] = { help_ping, NULL };
static const char *const page_doctor[] = { help_doctor, NULL };
static const char *const page_render[] = { help_render, NULL };
static const char *const page_help[] = { help_help, NULL };

/* One row per page: what `help NAME` and `NAME --help` show. */
static const struct {
	const char *name;
	enum rp_mode mode;
	const char *const *parts;
} pages[] = {
	{ "send",	RP_MODE_SEND,		page_send },
	{ "recv",	RP_MODE_RECV,		page_recv },
	{ "keygen",	RP_MODE_KEYGEN,		page_keygen },
	{ "devices",	RP_MODE_DEVICES,	page_devices },
	{ "ping",	RP_MODE_PING,		page_ping },
	{ "doctor",	RP_MODE_DOCTOR,		page_doctor },
	{ "render",	RP_MODE_RENDER,		page_render },
	{ "help",	RP_MODE_HELP,		page_help },
};

bool rp_opts_help_page(const char *name, enum rp_mode *mode)
{
	for (size_t i = 0; i < sizeof(pages) / sizeof(pages[0]); i++)
		if (!strcmp(pages[i].name, name)) {
			*mode = pages[i].mode;
			return true;
		}
	return false;
}

void rp_opts_usage(FILE *f, enum rp_mode mode)
{
	const char *const *part = page_overview;

	for (size_t i = 0; i < sizeof(pages) / sizeof(pages[0]); i++)
		if (pages[i].mode == mode)
			part = pages[i].parts;
	for (; *part; part++)
		fputs(*part, f);
	fputs(mode == RP_MODE_NONE ?
	      "\nSee 'rdmapush help CMD' for a command's options, and "
	      "rdmapush(1).\n" : "\nSee rdmapush(1).\n", f);
}
