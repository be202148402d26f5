// R-message decoders: the header (Parse, Expect) and the replies with small bodies.
// SPDX-License-Identifier: BSD-3-Clause

package p9

// Why a reply was refused. Decoders return one of these as why ("" when the reply is good):
// constant strings, so nothing allocates and the kernel can log them as they are.
const (
	whyShort    = "9p: reply shorter than a 9P header"
	whyLength   = "9p: reply length outside the buffer"
	whySize     = "9p: reply size field differs from the length the device reported"
	whyTag      = "9p: reply tag differs from the request's"
	whyType     = "9p: reply type does not answer the request"
	whyRlerror  = "9p: malformed Rlerror"
	whyErrno    = "9p: Rlerror errno outside 1..4095"
	whyNotEmpty = "9p: reply body should be empty"
	whyRversion = "9p: malformed Rversion"
	whyQid      = "9p: malformed qid reply (Rattach, Rmkdir, Rsymlink)"
	whyRwalk    = "9p: malformed Rwalk"
	whyWalkMore = "9p: Rwalk has more qids than the walk had names"
	whyRopen    = "9p: malformed Rlopen or Rlcreate"
	whyRdata    = "9p: malformed Rread or Rreaddir"
	whyCount    = "9p: reply count above the request's"
	whyRwrite   = "9p: malformed Rwrite"
	whyRlink    = "9p: malformed Rreadlink"
	whyRgetattr = "9p: malformed Rgetattr"
	whyRstatfs  = "9p: malformed Rstatfs"
	whyDirent   = "9p: directory entry runs past the data"
	whyDirName  = "9p: directory entry name empty, too long, or with '/' or NUL"
)

// Parse splits the n bytes the device reported writing at the start of b into a message's
// type, tag and body. It checks 7 ≤ n ≤ len(b) and that the message's own size field is n: a
// reply that says it is longer or shorter than what the device delivered is malformed (QEMU
// reports exactly the reply's size as the used length). body is b[7:n], capped.
func Parse(b []byte, n int) (typ uint8, tag uint16, body []byte, why string) {
	switch {
	case n < 0 || n > len(b):
		return 0, 0, nil, whyLength
	case n < HeaderSize:
		return 0, 0, nil, whyShort
	}
	if le.Uint32(b) != uint32(n) {
		return 0, 0, nil, whySize
	}
	return b[4], le.Uint16(b[5:]), b[HeaderSize:n:n], ""
}

// Expect parses the reply to a request of type treq (Tgetattr, ...) tagged tag. The reply must
// carry the same tag and be treq's reply (treq+1) or Rlerror. Three outcomes:
//
//   - why != "": the reply is malformed, answers another tag, or is of another type;
//   - errno != 0: the server answered Rlerror with that Linux errno (1..MaxErrno);
//   - otherwise body is the reply's body, for the reply's decoder (Rgetattr, ...).
func Expect(b []byte, n int, tag uint16, treq uint8) (body []byte, errno uint32, why string) {
	typ, rtag, body, why := Parse(b, n)
	if why != "" {
		return nil, 0, why
	}
	if rtag != tag {
		return nil, 0, whyTag
	}
	if typ == TypeRlerror {
		errno, why := Rlerror(body)
		if why != "" {
			return nil, 0, why
		}
		return nil, errno, ""
	}
	if typ != treq+1 {
		return nil, 0, whyType
	}
	return body, 0, ""
}

// Rlerror decodes Rlerror: ecode[4], a Linux errno. An errno outside 1..MaxErrno is malformed
// (0 would read as success, and the kernel hands −errno to user programs).
func Rlerror(body []byte) (errno uint32, why string) {
	r := reader{b: body}
	e := r.u32()
	if !r.done() {
		return 0, whyRlerror
	}
	if e == 0 || e > MaxErrno {
		return 0, whyErrno
	}
	return e, ""
}

// Empty checks the body of a reply that has none: Rclunk, Rflush, Rfsync, Rsetattr,
// Runlinkat, Rrenameat, Rlink.
func Empty(body []byte) (why string) {
	if len(body) != 0 {
		return whyNotEmpty
	}
	return ""
}

// Rversion decodes Rversion: msize[4] version[s]. The caller checks what it means: version
// Version2000L (anything else: the server does not speak it), msize between MinMsize and the
// msize asked for (the session's msize is the server's).
func Rversion(body []byte) (msize uint32, version []byte, why string) {
	r := reader{b: body}
	msize = r.u32()
	version = r.str()
	if !r.done() {
		return 0, nil, whyRversion
	}
	return msize, version, ""
}

// qidReply decodes a body that is one qid.
func qidReply(body []byte) (Qid, string) {
	r := reader{b: body}
	q := r.qid()
	if !r.done() {
		return Qid{}, whyQid
	}
	return q, ""
}

// Rattach decodes Rattach: qid[13], the root's.
func Rattach(body []byte) (Qid, string) { return qidReply(body) }

// Rmkdir decodes Rmkdir: qid[13], the new directory's.
func Rmkdir(body []byte) (Qid, string) { return qidReply(body) }

// Rsymlink decodes Rsymlink: qid[13], the new link's.
func Rsymlink(body []byte) (Qid, string) { return qidReply(body) }

// Rwalk decodes Rwalk: nwqid[2] nwqid*(qid[13]), for a Twalk of asked elements (Elements).
// last is the last qid (the zero Qid if none). nwqid = asked: newfid is the walked file;
// nwqid < asked: the element nwqid could not be walked and newfid was not created (walk(5)).
// More qids than asked, or a body that is not exactly nwqid qids, is malformed.
func Rwalk(body []byte, asked int) (nwqid int, last Qid, why string) {
	r := reader{b: body}
	nwqid = int(r.u16())
	if r.bad || len(r.b)-r.off != nwqid*QidSize {
		return 0, Qid{}, whyRwalk
	}
	if nwqid > asked || nwqid > MaxWalk {
		return 0, Qid{}, whyWalkMore
	}
	if nwqid > 0 {
		r.take((nwqid - 1) * QidSize)
		last = r.qid()
	}
	if !r.done() {
		return 0, Qid{}, whyRwalk
	}
	return nwqid, last, ""
}

// openReply decodes qid[13] iounit[4].
func openReply(body []byte) (Qid, uint32, string) {
	r := reader{b: body}
	q := r.qid()
	iounit := r.u32()
	if !r.done() {
		return Qid{}, 0, whyRopen
	}
	return q, iounit, ""
}

// Rlopen decodes Rlopen: qid[13] iounit[4]. iounit, when not 0, is the most data one Tread or
// Twrite on the fid should carry (QEMU: msize − IOHdrSize rounded down to the host's block
// size); the caller uses min(iounit, msize − IOHdrSize).
func Rlopen(body []byte) (qid Qid, iounit uint32, why string) { return openReply(body) }

// Rlcreate decodes Rlcreate: qid[13] iounit[4], as Rlopen.
func Rlcreate(body []byte) (qid Qid, iounit uint32, why string) { return openReply(body) }

// dataReply decodes count[4] data[count] for a request that asked for at most asked bytes.
func dataReply(body []byte, asked uint32) ([]byte, string) {
	r := reader{b: body}
	count := r.u32()
	if r.bad || uint64(len(r.b)-r.off) != uint64(count) {
		return nil, whyRdata
	}
	if count > asked {
		return nil, whyCount
	}
	return r.take(int(count)), ""
}

// Rread decodes Rread: count[4] data[count], for a Tread of asked bytes. data is a sub-slice of
// body; empty at end of file. More data than asked is malformed (Linux's client clamps it, "bogus
// RREAD count"; here the reply is refused).
func Rread(body []byte, asked uint32) (data []byte, why string) { return dataReply(body, asked) }

// Rreaddir decodes Rreaddir: count[4] data[count], for a Treaddir of asked bytes. data holds
// whole directory entries, for NextDirent; empty at the end of the directory.
func Rreaddir(body []byte, asked uint32) (data []byte, why string) { return dataReply(body, asked) }

// Rwrite decodes Rwrite: count[4], the bytes written of the asked; more is malformed.
func Rwrite(body []byte, asked uint32) (count uint32, why string) {
	r := reader{b: body}
	count = r.u32()
	if !r.done() {
		return 0, whyRwrite
	}
	if count > asked {
		return 0, whyCount
	}
	return count, ""
}

// Rreadlink decodes Rreadlink: target[s], the link's contents: non-empty and without NUL (a
// Linux symbolic link cannot hold either).
func Rreadlink(body []byte) (target []byte, why string) {
	r := reader{b: body}
	target = r.str()
	if !r.done() || len(target) == 0 {
		return nil, whyRlink
	}
	for _, c := range target {
		if c == 0 {
			return nil, whyRlink
		}
	}
	return target, ""
}
