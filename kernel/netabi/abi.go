// The numbers and layouts of gmpos_net.
// SPDX-License-Identifier: BSD-3-Clause

package netabi

import "encoding/binary"

// NrGmposNet is gmpos_net's system-call number, outside Linux's range like gmpos_info's.
const NrGmposNet = 0x6d71

// gmpos_net(op, a1, a2, a3, a4, a5) returns a result ≥ 0 or -errno. Every op but OpConfig
// needs the caller to have attached (EPERM otherwise); ops naming a Sid give EBADF for a stale
// or unknown one.
const (
	// OpConfig: a1 = buffer, a2 = its length (≥ ConfigSize). Fills a Config. ENODEV: no NIC
	// (the stack then serves loopback only); the rest of Config is still filled.
	OpConfig = 1
	// OpAttach: makes the caller the network stack. Returns the service file's fd
	// (O_NONBLOCK|O_CLOEXEC), readable while events are queued. EBUSY: attached already.
	OpAttach = 2
	// OpOpenNIC: a1 = NIC index (0). Returns the NIC file's fd (O_NONBLOCK|O_CLOEXEC): read
	// returns one Ethernet frame (EAGAIN: none; EMSGSIZE never — a short buffer truncates, as
	// a TAP device does), write sends one (EINVAL: shorter than an Ethernet header or longer
	// than MaxFrame; EAGAIN: the transmit ring is full). ENODEV: no such NIC.
	OpOpenNIC = 3
	// OpEvents: a1 = buffer, a2 = how many EventSize records fit. Returns how many were
	// written; 0 when none are queued (the service file is then not readable).
	OpEvents = 4
	// OpReply: a1 = request id (Event.Req), a2 = result (0 or -errno, errno ≤ MaxErrno, as the
	// program's system call returns it), a3/a4 = payload (a sockaddr for accept, getsockname and
	// getpeername, the option's value for getsockopt). Wakes the caller. ESRCH: no such
	// request (the caller was interrupted; the reply is dropped).
	OpReply = 5
	// OpPush: a1 = Sid, a2/a3 = data, a4/a5 = source sockaddr (dgram). Appends to the
	// socket's receive ring. Stream: returns the bytes taken (0..a3; less than a3 when the ring
	// is full: an EvRxSpace follows when the program has read). Dgram: the whole datagram or
	// EAGAIN (ring full; EvRxSpace follows). EPIPE: the program shut the socket for reading.
	OpPush = 6
	// OpPull: a1 = Sid, a2/a3 = buffer, a4 = address buffer (AddrBufSize bytes, dgram:
	// u32 length + the destination sockaddr; length 0 = the connected peer). Takes from the
	// socket's send ring: stream, up to a3 bytes; dgram, one datagram (truncated to a3).
	// Returns the bytes; 0 when the ring is empty.
	OpPull = 7
	// OpState: a1 = Sid, a2 = bits to set, a3 = bits to clear, a4 = the error for StErr
	// (1..MaxErrno).
	// Sets the socket's readiness as the stack sees it; the kernel wakes pollers.
	OpState = 8
	// OpRelease: a1 = Sid. The stack is done with a socket the program closed (EvClosed):
	// the kernel frees its rings and slot.
	OpRelease = 9
	// OpSetAddr: a1 = Sid, a2/a3 = its local sockaddr, a4/a5 = its peer's (a length of 0
	// leaves that one as it was). getsockname and getpeername answer from these without a
	// round trip — Go calls them with RawSyscall, which keeps the caller's P, so a round trip
	// could not be served on GOMAXPROCS=1. The stack sets them after bind, listen, connect,
	// before it replies or sets StConnected.
	OpSetAddr = 10
	// OpAccepted: a1 = the listener's Sid, a2 = AddrBufSize*2 bytes: the new connection's local
	// sockaddr (u32 length + sockaddr, as OpPull's address buffer) then its peer's. The kernel
	// makes a socket for it in the listener's accept queue, already in state
	// StConnected|StTxOpen (so that accept4 can never return a socket the program could not
	// use yet), and returns its Sid. EAGAIN: the queue is full; an EvRxSpace for the listener
	// follows when accept4 has taken one.
	OpAccepted = 11
	// OpNICRecv: a1 = buffer, a2 = its length (≥ FrameRecMax). Moves as many received frames
	// as fit into the buffer as frame records (below) and returns the bytes used — the NIC
	// file's read, several frames per system call. If the call emptied the ring, the NIC's
	// receive interrupt is back on and the result has NICDrained set: the caller may wait for
	// the NIC file to become readable instead of calling again to find it empty. EAGAIN: none
	// waiting (the interrupt is back on). EINVAL: a short buffer. ENODEV: no NIC.
	OpNICRecv = 12
	// OpNICSend: a1 = frame records, a2 = their total length. Sends them in order with one
	// notification of the device and returns how many went out; fewer than given when the
	// transmit ring filled up (the rest are the caller's to drop, as a busy wire would), EAGAIN
	// when none did. EINVAL: a record is malformed or its frame is shorter than an Ethernet
	// header or longer than MaxFrame (nothing from that record on is sent). ENODEV: no NIC.
	OpNICSend = 13
)

// NICDrained is OpNICRecv's flag in its result: the ring is empty and the interrupt re-armed.
const NICDrained = 1 << 30

// Frame records (OpNICRecv, OpNICSend): a u16 little-endian frame length, then the frame,
// back to back. FrameRecMax is the largest record.
const (
	FrameRecHdr = 2
	FrameRecMax = FrameRecHdr + MaxFrame
)

// MaxErrno is the highest errno a socket error (OpState) or a reply (OpReply) may carry: Linux's
// highest (EHWPOISON). No Linux call returns anything in -4095..-134, and Go's syscall package
// reads -4095 as a successful result.
const MaxErrno = 133

// State bits (OpState): what the stack knows about a socket.
const (
	StConnected  = 1 << iota // stream: established (writable while the send ring has room)
	StAcceptable             // unused: the kernel's accept queue decides (OpAccepted)
	StRxEOF                  // the peer sends no more: read returns 0 once the ring is empty
	StHup                    // both directions are closed (EPOLLHUP)
	StTxOpen                 // the stack takes data: EvTxReady is sent when data is waiting
	StErr                    // a4 is the pending error (SO_ERROR; EPOLLERR)
)

// Event kinds (Event.Kind).
const (
	EvRequest = 1 // a socket call to carry out: Op, Args, Data; answer with OpReply(Req), unless Req is 0 (see below)
	EvTxReady = 2 // the socket's send ring has data: Pull (see below)
	EvRxSpace = 3 // the program read from a ring the stack found full: Push again
	EvClosed  = 4 // the program closed the socket: Pull what is left, close, then OpRelease
)

// EvTxReady is queued when data is in a socket's send ring, the stack takes data (StTxOpen)
// and no EvTxReady for the socket is queued unfetched: when the program writes, and when the
// stack sets StTxOpen again. So once the stack has fetched one, any later write brings another:
// a Pull that empties the ring need not be followed by one that finds it empty.

// Request ops (Event.Op of an EvRequest), with what Args and Data hold and what the reply is.
//
// Requests with Req 0 are asynchronous: the program's call has already returned (socket,
// setsockopt, shutdown, a stream connect — which returned EINPROGRESS), and no reply is
// wanted. Their failures become socket state: a socket that could not be made, or a connect
// that failed, gets StErr (and StHup); a refused option is counted and dropped (the kernel
// has already checked level and name against the options the stack knows).
const (
	ReqSocket      = 1  // async. Args[0] = type (SOCK_STREAM/SOCK_DGRAM), Args[1] = protocol
	ReqBind        = 2  // Data = sockaddr → 0
	ReqListen      = 3  // Args[0] = backlog → 0
	ReqConnect     = 4  // Data = sockaddr. Stream: async (StConnected or StErr later). Dgram: → 0 (OpSetAddr first)
	ReqAccept      = 5  // unused: OpAccepted
	ReqGetsockname = 6  // unused: OpSetAddr
	ReqGetpeername = 7  // unused: OpSetAddr
	ReqSetsockopt  = 8  // async. Args[0] = level, Args[1] = name, Data = value
	ReqGetsockopt  = 9  // Args[0] = level, Args[1] = name, Args[2] = the caller's optlen → 0 + value
	ReqShutdown    = 10 // async. Args[0] = how (SHUT_RD, SHUT_WR, SHUT_RDWR)
)

// Sizes.
const (
	EventSize   = 128  // one event record
	MaxData     = 80   // Event.Data
	ConfigSize  = 64   // Config
	AddrBufSize = 32   // OpPull's address buffer: u32 length + up to 28 bytes of sockaddr
	MaxFrame    = 1514 // an Ethernet frame without FCS at MTU 1500
	RingSize    = 64 << 10
	SidSlotBits = 12
	MaxSockets  = 1 << 8 // socket-table slots (≤ 1<<SidSlotBits)
)

// Event record layout: byte offsets (little endian).
const (
	EvOffKind = 0  // u16
	EvOffOp   = 2  // u16
	EvOffSid  = 4  // u32
	EvOffReq  = 8  // u32
	EvOffLen  = 12 // u32: bytes of Data used
	EvOffArgs = 16 // [4]u64
	EvOffData = 48 // [MaxData]byte
)

// Config record layout: byte offsets.
const (
	CfgOffMAC     = 0  // [6]byte
	CfgOffMTU     = 6  // u16
	CfgOffFlags   = 8  // u32: CfgNIC, CfgStatic
	CfgOffAddr    = 12 // [4]byte IPv4 address
	CfgOffPrefix  = 16 // u8 prefix length
	CfgOffGateway = 20 // [4]byte (0.0.0.0: none)
	CfgOffDNS     = 24 // [4]byte (0.0.0.0: none)
)

// Config flags.
const (
	CfgNIC    = 1 << iota // a NIC is present: MAC and MTU are valid
	CfgStatic             // the addresses are configured (kernel option ip=, or the default)
)

// Event is a decoded event record (for the stack; the kernel writes records by offset).
type Event struct {
	Kind uint16
	Op   uint16
	Sid  uint32
	Req  uint32
	Args [4]uint64
	Data []byte // aliases the record
}

// DecodeEvent decodes one EventSize record. ok is false for a short record or a Len beyond
// MaxData (the kernel never writes one; the stack must not trust a record blindly either).
func DecodeEvent(b []byte) (e Event, ok bool) {
	if len(b) < EventSize {
		return Event{}, false
	}
	le := binary.LittleEndian
	n := le.Uint32(b[EvOffLen:])
	if n > MaxData {
		return Event{}, false
	}
	e.Kind = le.Uint16(b[EvOffKind:])
	e.Op = le.Uint16(b[EvOffOp:])
	e.Sid = le.Uint32(b[EvOffSid:])
	e.Req = le.Uint32(b[EvOffReq:])
	for i := range e.Args {
		e.Args[i] = le.Uint64(b[EvOffArgs+8*i:])
	}
	e.Data = b[EvOffData : EvOffData+int(n)]
	return e, true
}

// EncodeEvent writes e as one record into b (len ≥ EventSize); Data beyond MaxData is cut.
// The kernel has its own allocation-free writer; this one is for tests and fakes.
func EncodeEvent(b []byte, e Event) {
	le := binary.LittleEndian
	clear(b[:EventSize])
	le.PutUint16(b[EvOffKind:], e.Kind)
	le.PutUint16(b[EvOffOp:], e.Op)
	le.PutUint32(b[EvOffSid:], e.Sid)
	le.PutUint32(b[EvOffReq:], e.Req)
	for i, a := range e.Args {
		le.PutUint64(b[EvOffArgs+8*i:], a)
	}
	n := copy(b[EvOffData:EvOffData+MaxData], e.Data)
	le.PutUint32(b[EvOffLen:], uint32(n))
}

// Config is the network configuration the kernel hands the stack (OpConfig).
type Config struct {
	MAC       [6]byte
	MTU       uint16
	Flags     uint32
	Addr      [4]byte
	PrefixLen uint8
	Gateway   [4]byte
	DNS       [4]byte
}

// DecodeConfig decodes a ConfigSize record; ok is false if it is short or a field is out of
// range (prefix > 32, MTU below 68 with a NIC).
func DecodeConfig(b []byte) (c Config, ok bool) {
	if len(b) < ConfigSize {
		return Config{}, false
	}
	le := binary.LittleEndian
	copy(c.MAC[:], b[CfgOffMAC:])
	c.MTU = le.Uint16(b[CfgOffMTU:])
	c.Flags = le.Uint32(b[CfgOffFlags:])
	copy(c.Addr[:], b[CfgOffAddr:])
	c.PrefixLen = b[CfgOffPrefix]
	copy(c.Gateway[:], b[CfgOffGateway:])
	copy(c.DNS[:], b[CfgOffDNS:])
	if c.PrefixLen > 32 || (c.Flags&CfgNIC != 0 && c.MTU < 68) {
		return Config{}, false
	}
	return c, true
}

// EncodeConfig writes c into b (len ≥ ConfigSize). For tests and fakes.
func EncodeConfig(b []byte, c Config) {
	le := binary.LittleEndian
	clear(b[:ConfigSize])
	copy(b[CfgOffMAC:], c.MAC[:])
	le.PutUint16(b[CfgOffMTU:], c.MTU)
	le.PutUint32(b[CfgOffFlags:], c.Flags)
	copy(b[CfgOffAddr:], c.Addr[:])
	b[CfgOffPrefix] = c.PrefixLen
	copy(b[CfgOffGateway:], c.Gateway[:])
	copy(b[CfgOffDNS:], c.DNS[:])
}

// The kernel's network counters: gmpos_info(InfoNetStats, buf, n) writes n u64 counters in
// this order (fewer if n is smaller) and returns NumNetStats.
const InfoNetStats = 8

const (
	NetRxFrames   = iota // frames the NIC delivered and the kernel accepted
	NetRxBytes           // their bytes (without the virtio header)
	NetRxDrops           // frames dropped: invalid device data (used-ring id or length), or no reader
	NetTxFrames          // frames sent
	NetTxBytes           // their bytes
	NetTxFull            // sends refused because the transmit ring was full (EAGAIN)
	NetIRQs              // NIC interrupts
	NetPolls             // polls of the rings under the BKL (findRunnable, a tick, an idle halt)
	NetPollHits          // polls that found completed work
	NetReadyPoll         // threads made runnable by the poller
	NetReadyIRQ          // threads made runnable by the NIC's interrupt handler
	NetReadyStack        // threads made runnable by the stack (socket data, replies)
	NetIdleHalts         // times a core went idle (with the BKL or not) while threads waited on the net
	NetRequests          // socket requests carried out by the stack (round trips)
	NetSockets           // sockets open now
	NetDevErrors         // device-data errors by kind: bad used id, bad length, bad header
	NumNetStats
)

// NetStatNames names the counters (for klog, gmpos_info readers and pages).
var NetStatNames = [NumNetStats]string{
	"rx_frames", "rx_bytes", "rx_drops", "tx_frames", "tx_bytes", "tx_full", "irqs", "polls",
	"poll_hits", "ready_poll", "ready_irq", "ready_stack", "idle_halts", "requests", "sockets",
	"dev_errors",
}
