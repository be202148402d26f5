// 9P2000.L message numbers, sizes and the protocol's constants.
// SPDX-License-Identifier: BSD-3-Clause

package p9

// Message types (Linux include/net/9p/9p.h, enum p9_msg_t): the requests this client sends.
// Each one's reply is its number plus one (Rgetattr = Tgetattr+1, ...), which is how Expect
// names the reply it wants; and any request may be answered with Rlerror (7), a Linux errno.
// (The replies have no constants of their own: their names are the decoders'.)
const (
	Tstatfs   = 8
	Tlopen    = 12
	Tlcreate  = 14
	Tsymlink  = 16
	Treadlink = 22
	Tgetattr  = 24
	Tsetattr  = 26
	Treaddir  = 40
	Tfsync    = 50
	Tlink     = 70
	Tmkdir    = 72
	Trenameat = 74
	Tunlinkat = 76
	Tversion  = 100
	Tattach   = 104
	Tflush    = 108
	Twalk     = 110
	Tread     = 116
	Twrite    = 118
	Tclunk    = 120
)

// TypeRlerror is Rlerror's message type (P9_RLERROR; its Tlerror, 6, is never sent).
const TypeRlerror = 7

// Sizes on the wire.
const (
	HeaderSize = 7  // size[4] type[1] tag[2]
	QidSize    = 13 // type[1] version[4] path[8]
	// IOHdrSize is the room Linux and QEMU keep for the header of a message carrying data
	// (P9_IOHDRSZ): Tread, Twrite and Treaddir counts are at most msize − IOHdrSize, and QEMU
	// computes iounit the same way. (Twrite's own header is 23 bytes, Rread's 11.)
	IOHdrSize = 24
	// WriteHeaderSize is Twrite's header: size type tag fid[4] offset[8] count[4]. The data
	// follows it.
	WriteHeaderSize = HeaderSize + 4 + 8 + 4
	// MaxWalk is the most path elements one Twalk may carry (MAXWELEM, walk(5)).
	MaxWalk = 16
	// MaxErrno bounds an Rlerror's ecode: Linux errnos are 1..4095 (MAX_ERRNO).
	MaxErrno = 4095
	// MinMsize is the smallest msize a session may use: Linux's client refuses a server's
	// below it (p9_client_version), and QEMU's server a client's (P9_MIN_MSIZE).
	MinMsize = 4096
)

// Version2000L is the protocol this package speaks, for Tversion and to check Rversion.
const Version2000L = "9P2000.L"

// Magic numbers (intro(5), Linux 9p.h).
const (
	NoFid = ^uint32(0) // "no fid": Tattach's afid without authentication
	NoTag = 0xffff     // the tag of Tversion, which is outside any session
	// NoUname is Tattach's n_uname when uname is to be used instead (P9_NONUNAME).
	NoUname = ^uint32(0)
)

// Qid types (qid.type, Linux enum p9_qid_t): the high byte of a 9P2000 mode.
const (
	QTDIR     = 0x80
	QTAPPEND  = 0x40
	QTEXCL    = 0x20
	QTMOUNT   = 0x10
	QTAUTH    = 0x08
	QTTMP     = 0x04
	QTSYMLINK = 0x02
	QTLINK    = 0x01
	QTFILE    = 0x00
)

// Tgetattr request_mask and Rgetattr valid bits (P9_GETATTR_*, Linux P9_STATS_*).
const (
	GetattrMode        = 0x00000001
	GetattrNlink       = 0x00000002
	GetattrUID         = 0x00000004
	GetattrGID         = 0x00000008
	GetattrRdev        = 0x00000010
	GetattrAtime       = 0x00000020
	GetattrMtime       = 0x00000040
	GetattrCtime       = 0x00000080
	GetattrIno         = 0x00000100
	GetattrSize        = 0x00000200
	GetattrBlocks      = 0x00000400
	GetattrBtime       = 0x00000800
	GetattrGen         = 0x00001000
	GetattrDataVersion = 0x00002000
	GetattrBasic       = 0x000007ff // everything struct stat has
	GetattrAll         = 0x00003fff
)

// Tsetattr valid bits (P9_SETATTR_*, Linux's ATTR_* of struct iattr). A time bit without its
// Set bit means "now" on the server; with it, the time sent.
const (
	SetattrMode     = 0x001
	SetattrUID      = 0x002
	SetattrGID      = 0x004
	SetattrSize     = 0x008
	SetattrAtime    = 0x010
	SetattrMtime    = 0x020
	SetattrCtime    = 0x040
	SetattrAtimeSet = 0x080
	SetattrMtimeSet = 0x100
)

// Tlopen and Tlcreate flags are Linux's open(2) flags with their x86-64 values (9P2000.L's
// P9_DOTL_* are defined as those numbers; QEMU maps them to the host's, and ignores O_NOCTTY,
// O_ASYNC, O_CREAT and O_DIRECT on Tlopen). The ones a client needs:
const (
	OpenRDONLY    = 00000000
	OpenWRONLY    = 00000001
	OpenRDWR      = 00000002
	OpenCREAT     = 00000100
	OpenEXCL      = 00000200
	OpenTRUNC     = 00001000
	OpenAPPEND    = 00002000
	OpenNONBLOCK  = 00004000
	OpenDSYNC     = 00010000
	OpenDIRECTORY = 00200000
	OpenNOFOLLOW  = 00400000
	OpenNOATIME   = 01000000
	OpenCLOEXEC   = 02000000
	OpenSYNC      = 04010000 // __O_SYNC | O_DSYNC
)

// AtRemoveDir is Tunlinkat's flag to remove a directory (Linux AT_REMOVEDIR, P9_DOTL_AT_REMOVEDIR).
const AtRemoveDir = 0x200

// Qid is a server's identity for a file: its kind (QT* bits), a version that changes when the
// file does (QEMU: from the mtime), and a path unique on the server (QEMU: from the inode).
type Qid struct {
	Type    uint8
	Version uint32
	Path    uint64
}
