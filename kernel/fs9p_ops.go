// The calls served by a share: each one a few 9P round trips, run by the device's interrupt.
// SPDX-License-Identifier: BSD-3-Clause

package kernel

import (
	"gmpos/drivers/virtio/p9"
	"gmpos/kernel/vfs"
	"gmpos/sched"
)

// A call on a share takes a request slot (fs9p.go) and runs as a little state machine: most
// begin by walking a path to a new fid (Twalk, at most 16 names a message, so a longer path
// takes several), then send the call's own messages, each reply choosing the next message or
// the end. p9Step is the machine; p9Finish ends the call: it wakes the thread with the result
// and gives back the fids the call walked to (Tclunk, with nobody waiting).
//
// The host's answers are Linux's errnos (9P2000.L's Rlerror carries them), so most errors —
// ENOENT, ENOTDIR, EISDIR, EEXIST, ENOTEMPTY — come from the host's own file system. Writes
// copy the caller's data into the message when the call is made; reads, stat and getdents
// write into the caller's memory when the reply comes, checking the range again then (another
// thread may have unmapped it meanwhile).
//
// What is not done over a share (said in README): an absolute symbolic link (it names the host's
// file system: EXDEV), hard links, mmap, and a path that leaves a share upwards from inside it
// ("..": the walk stays at the share's root). Relative links are followed (p9FollowPartial,
// p9Resolved, below); a working directory inside a share is its path below the share's root
// (sys_path.go cwdShare, cwdRel).

type p9Op uint8

const (
	p9OpClunk p9Op = iota + 1
	p9OpOpen
	p9OpCreate // open with O_CREAT
	p9OpStat
	p9OpAccess
	p9OpReadlink
	p9OpMkdir
	p9OpUnlink
	p9OpRename
	p9OpSymlink
	p9OpSetattr // by path: chmod, truncate, utimensat
	p9OpRead
	p9OpWrite
	p9OpFstat
	p9OpGetdents
	p9OpFsync
	p9OpFsetattr // by fd: ftruncate, fchmod, futimens
	p9OpChdir    // chdir into a share: is it a directory? (Tgetattr)
)

// p9Req is one call in flight on a slot.
type p9Req struct {
	busy, waiting bool
	op            p9Op
	sent          uint8 // the T-message in flight
	phase         uint8 // 0: walking path to fid; 1: walking path2 to fid2; 2: the call's steps
	gp            sched.GID
	from, from2   uint32 // the fids the walks start from (the root, or a dirfd's)
	fid, fid2     uint32 // fids this call walked to (0: none), clunked at the end
	keep          bool   // fid became an open file's: not clunked
	walkN         int    // names in the walk in flight
	cont          bool   // the walk in flight goes on from fid (a long path's next names)
	follow        bool   // follow a symbolic link that is the walked path's last name
	links         int    // symbolic links followed (40 at most: ELOOP)
	batch, done   p9Path // the names of the walk in flight; the names walked so far (phase 0)
	rest          p9Path // what follows a symbolic link being resolved
	path, path2   p9Path
	name, name2   p9Path // the last components, for calls on a parent directory
	qid           p9.Qid
	flags, mode   uint32
	buf, n        uintptr
	pos           int64
	fi            int32 // the open file of an fd call (a reference held), -1: none
	statx         bool
	valid         uint32 // Tsetattr
	uid, gid      uint32
	size          int64
	atime, mtime  int64
}

// p9Path is a path or name the call owns (the caller's copy may be reused by then).
type p9Path struct {
	b [vfs.PathMax]byte
	n int
}

func (p *p9Path) bytes() []byte { return p.b[:p.n] }

// p9Clean writes rest, cleaned — "." dropped, ".." taking off the name before it (and nothing
// at the share's root), "//" as "/" — into p, without a leading or trailing slash.
func p9Clean(p *p9Path, rest []byte) {
	p.n = 0
	for i := 0; i < len(rest); {
		for i < len(rest) && rest[i] == '/' {
			i++
		}
		j := i
		for j < len(rest) && rest[j] != '/' {
			j++
		}
		c := rest[i:j]
		i = j
		switch string(c) {
		case "", ".":
		case "..":
			for p.n > 0 && p.b[p.n-1] != '/' {
				p.n--
			}
			if p.n > 0 {
				p.n-- // the slash
			}
		default:
			if p.n > 0 {
				p.b[p.n] = '/'
				p.n++
			}
			p.n += copy(p.b[p.n:], c)
		}
	}
}

// splitLast moves the last name of p into name; p keeps its directory.
func splitLast(p, name *p9Path) {
	k := p.n
	for k > 0 && p.b[k-1] != '/' {
		k--
	}
	name.n = copy(name.b[:], p.b[k:p.n])
	p.n = max(k-1, 0)
}

// p9Begin takes a slot of share i for a call of op by gp; ok false when the thread has had to
// wait for a slot (the call then runs again) — ret is then the caller's to return.
func p9Begin(t *Thread, gp sched.GID, cpu int, i int, op p9Op) (r *p9Req, slot int, ret int64, ok bool) {
	slot = p9Slot(i)
	if slot < 0 {
		return nil, -1, p9WaitSlot(t, gp, cpu), false
	}
	r = &p9s[i].req[slot]
	r.op, r.fi = op, -1
	return r, slot, 0, true
}

// p9PathCall prepares a call of op that walks (a cleaned) rest from fid from. parent: the walk
// goes to the directory holding the last name, which goes to r.name. The caller fills in the
// call's arguments and starts it with p9Go. ok false: ret is the caller's to return (a wait for
// a slot, or EBUSY for a parent call on the share's root itself).
func p9PathCall(t *Thread, gp sched.GID, cpu int, i int, op p9Op, from uint32, rest []byte, parent bool) (r *p9Req, slot int, ret int64, ok bool) {
	r, slot, ret, ok = p9Begin(t, gp, cpu, i, op)
	if !ok {
		return nil, -1, ret, false
	}
	r.from = from
	r.follow = parent // the directory holding a name is followed to; a call on a file says
	p9Clean(&r.path, rest)
	if parent {
		if r.path.n == 0 {
			p9s[i].req[slot] = p9Req{}
			return nil, -1, -EBUSY, false // the share's root itself
		}
		splitLast(&r.path, &r.name)
	}
	return r, slot, 0, true
}

// p9Go sends a path call's first walk and parks the thread until the call ends.
func p9Go(t *Thread, gp sched.GID, cpu int, i, slot int) int64 {
	if !p9Walk(i, slot) {
		p9s[i].req[slot] = p9Req{}
		return -EIO
	}
	return p9Wait(t, gp, cpu, i, slot)
}

// p9Walk sends the next walk of the path of the current phase.
func p9Walk(i, slot int) bool {
	r := &p9s[i].req[slot]
	path, from, fid := &r.path, r.from, &r.fid
	if r.phase == 1 {
		path, from, fid = &r.path2, r.from2, &r.fid2
	}
	r.cont = *fid != 0
	if *fid == 0 {
		if *fid = p9NewFid(i); *fid == 0 {
			return false
		}
	} else {
		from = *fid // the rest of a long path: walk on from where the last walk ended
	}
	first, more := p9.WalkSplit(path.bytes())
	r.walkN = p9.Elements(first)
	r.batch.n = copy(r.batch.b[:], first)
	// What the next walk starts with: the unwalked part, moved to the front.
	path.n = copy(path.b[:], more)
	return p9Send(i, slot, p9.Walk(p9s[i].dev.Out(slot), uint16(slot), from, *fid, first), p9.Twalk)
}

// p9Step runs a call's next step with the reply to its last message (body, or errno).
// Interrupt or trap context.
func p9Step(i, slot int, body []byte, errno int64, cpu int) {
	s := &p9s[i]
	r := &s.req[slot]
	if r.op == p9OpClunk {
		p9FreeFid(i, r.fid)
		p9Release(i, slot, cpu)
		return
	}
	if r.sent == p9.Twalk {
		partialLink := -1 // a partial walk that stopped after a symbolic link: its names
		if errno == 0 {
			n, last, why := p9.Rwalk(body, r.walkN)
			switch {
			case why != "":
				errno = EIO
			case n < r.walkN && r.phase == 0 && last.Type&p9.QTSYMLINK != 0:
				partialLink = n // the host does not walk through a link: resolve it here
			case n < r.walkN:
				errno = ENOENT // a partial walk: a name on the way is missing
			case n > 0:
				r.qid = last
			}
		}
		fidp := &r.fid
		if r.phase == 1 || r.phase == 2 && r.op == p9OpCreate {
			fidp = &r.fid2
		}
		if partialLink >= 0 {
			p9WalkFailed(i, fidp, r.cont)
			p9FollowPartial(i, slot, partialLink, cpu)
			return
		}
		if errno == 0 && r.phase == 0 {
			p9Append(&r.done, r.batch.bytes())
			if r.path.n == 0 && r.walkN > 0 && r.qid.Type&p9.QTSYMLINK != 0 && r.follow {
				// The path's last name is a link to follow, and fid is the link.
				r.rest.n = 0
				p9ReadLink(i, slot)
				return
			}
		}
		if errno != 0 {
			p9WalkFailed(i, fidp, r.cont) // a failed walk makes no fid, but a continued one keeps its
			*fidp = 0
			if r.op == p9OpCreate && r.phase == 2 && errno == ENOENT {
				p9Create(i, slot)
				return
			}
			p9Finish(i, slot, -errno, cpu)
			return
		}
		path := &r.path
		if r.phase == 1 {
			path = &r.path2
		}
		if path.n > 0 {
			p9Walk(i, slot)
			return
		}
		if r.phase == 4 { // walked to a symbolic link to resolve
			p9ReadLink(i, slot)
			return
		}
		if r.phase == 0 && r.op == p9OpRename {
			r.phase = 1
			p9Walk(i, slot)
			return
		}
		if r.op == p9OpCreate && r.phase < 2 {
			// The directory is fid: does the name exist? (walk it to fid2)
			r.phase = 2
			r.fid2 = p9NewFid(i)
			r.walkN = 1
			p9Send(i, slot, p9.Walk(s.dev.Out(slot), uint16(slot), r.fid, r.fid2, r.name.bytes()), p9.Twalk)
			return
		}
		if r.op == p9OpCreate { // the name exists: open it (fid2), unless O_EXCL
			if r.flags&oExcl != 0 {
				p9Finish(i, slot, -EEXIST, cpu)
				return
			}
			p9Send(i, slot, p9.Lopen(s.dev.Out(slot), uint16(slot), r.fid2, r.flags&^(oCreat|oExcl|oCloexec)), p9.Tlopen)
			return
		}
		r.phase = 2
		p9First(i, slot, cpu)
		return
	}
	if errno != 0 {
		p9Finish(i, slot, -errno, cpu)
		return
	}
	p9Reply(i, slot, body, cpu)
}

// p9Create makes the name in the directory fid (Tlcreate: fid becomes the new file, open).
func p9Create(i, slot int) {
	r := &p9s[i].req[slot]
	n := p9.Lcreate(p9s[i].dev.Out(slot), uint16(slot), r.fid, r.name.bytes(), r.flags&^(oCreat|oExcl|oCloexec), r.mode&^umask&0o7777, 0)
	p9Send(i, slot, n, p9.Tlcreate)
}

// p9First sends a path call's first message once its walk is done (fid: the file, or the
// directory holding r.name).
func p9First(i, slot int, cpu int) {
	s := &p9s[i]
	r := &s.req[slot]
	out, tag := s.dev.Out(slot), uint16(slot)
	var n int
	var t uint8
	switch r.op {
	case p9OpOpen:
		n, t = p9.Lopen(out, tag, r.fid, r.flags&^oCloexec), p9.Tlopen
	case p9OpStat, p9OpAccess, p9OpChdir:
		n, t = p9.Getattr(out, tag, r.fid, p9.GetattrBasic), p9.Tgetattr
	case p9OpReadlink:
		n, t = p9.Readlink(out, tag, r.fid), p9.Treadlink
	case p9OpMkdir:
		n, t = p9.Mkdir(out, tag, r.fid, r.name.bytes(), r.mode&0o1777&^umask, 0), p9.Tmkdir
	case p9OpUnlink:
		n, t = p9.Unlinkat(out, tag, r.fid, r.name.bytes(), r.flags), p9.Tunlinkat
	case p9OpRename:
		n, t = p9.Renameat(out, tag, r.fid, r.name.bytes(), r.fid2, r.name2.bytes()), p9.Trenameat
	case p9OpSymlink:
		n, t = p9.Symlink(out, tag, r.fid, r.name.bytes(), r.path2.bytes(), 0), p9.Tsymlink
	case p9OpSetattr:
		n, t = p9Setattr(out, tag, r), p9.Tsetattr
	}
	if !p9Send(i, slot, n, t) {
		p9Finish(i, slot, -EIO, cpu)
	}
}

// p9Setattr encodes a Tsetattr of r's valid fields.
func p9Setattr(out []byte, tag uint16, r *p9Req) int {
	return p9.Setattr(out, tag, r.fid, r.valid, r.mode, r.uid, r.gid, uint64(r.size),
		uint64(r.atime/1e9), uint64(r.atime%1e9), uint64(r.mtime/1e9), uint64(r.mtime%1e9))
}

// p9Reply handles the reply to a call's own message.
func p9Reply(i, slot int, body []byte, cpu int) {
	s := &p9s[i]
	r := &s.req[slot]
	switch r.sent {
	case p9.Tlopen, p9.Tlcreate:
		qid, _, why := p9.Rlopen(body)
		if why != "" {
			p9Finish(i, slot, -EIO, cpu)
			return
		}
		r.qid = qid
		if r.sent == p9.Tlopen && r.op == p9OpCreate {
			// fid2 is the open file; the directory fid goes.
			r.fid, r.fid2 = r.fid2, r.fid
		}
		// The size, for lseek(SEEK_END), fstat's cheap cases and O_APPEND's position.
		p9Send(i, slot, p9.Getattr(s.dev.Out(slot), uint16(slot), r.fid, p9.GetattrBasic), p9.Tgetattr)
		r.op = p9OpOpen
		r.phase = 3
	case p9.Tgetattr:
		a, why := p9.Rgetattr(body)
		if why != "" {
			p9Finish(i, slot, -EIO, cpu)
			return
		}
		switch {
		case r.op == p9OpOpen && r.phase == 3:
			p9Install(i, slot, &a, cpu)
		case r.op == p9OpChdir:
			ret := int64(-ENOTDIR)
			if a.Mode&sIFMT == sIFDIR {
				ret = 0
				if r.waiting {
					setShareCwd(procOf(&threads[r.gp]), i, &r.path2)
				}
			}
			p9Finish(i, slot, ret, cpu)
		case r.op == p9OpAccess:
			ret := int64(0)
			if r.mode&1 != 0 && a.Mode&sIFDIR == 0 && a.Mode&0o111 == 0 {
				ret = -EACCES
			}
			p9Finish(i, slot, ret, cpu)
		default: // stat, fstat
			p9Finish(i, slot, p9PutStat(i, r, &a), cpu)
		}
	case p9.Treadlink:
		target, why := p9.Rreadlink(body)
		if why != "" {
			p9Finish(i, slot, -EIO, cpu)
			return
		}
		if r.phase == 4 {
			p9Resolved(i, slot, target, cpu)
			return
		}
		p9Finish(i, slot, p9CopyOut(r, target), cpu)
	case p9.Tread:
		data, why := p9.Rread(body, uint32(r.n))
		if why != "" {
			p9Finish(i, slot, -EIO, cpu)
			return
		}
		ret := p9CopyOut(r, data)
		if ret > 0 && r.pos < 0 && r.waiting { // read(2): the position moves
			files[r.fi].pos += ret
		}
		p9Finish(i, slot, ret, cpu)
	case p9.Twrite:
		count, why := p9.Rwrite(body, uint32(r.n))
		if why != "" {
			p9Finish(i, slot, -EIO, cpu)
			return
		}
		f := &files[r.fi]
		at := r.size // where it was written
		if end := at + int64(count); end > p9Files[r.fi].size {
			p9Files[r.fi].size = end
		}
		if r.pos < 0 {
			f.pos = at + int64(count)
		}
		p9Finish(i, slot, int64(count), cpu)
	case p9.Treaddir:
		data, why := p9.Rreaddir(body, uint32(r.n))
		if why != "" {
			p9Finish(i, slot, -EIO, cpu)
			return
		}
		p9Finish(i, slot, p9Dirents(r, data), cpu)
	case p9.Tsetattr:
		if r.fi >= 0 && r.valid&p9.SetattrSize != 0 {
			p9Files[r.fi].size = r.size
		}
		p9Finish(i, slot, 0, cpu)
	default: // Rmkdir, Runlinkat, Rrenameat, Rsymlink, Rfsync: done
		p9Finish(i, slot, 0, cpu)
	}
}

// p9Finish ends the call on slot with ret: the thread (if it still waits) gets it, the
// reference an fd call held is dropped, and the fids the call walked to are clunked.
func p9Finish(i, slot int, ret int64, cpu int) {
	s := &p9s[i]
	r := &s.req[slot]
	if r.waiting && blocked(r.gp) && threads[r.gp].wait == waitP9 {
		wakeThread(r.gp, ret, cpu)
	}
	if r.fi >= 0 {
		putFile(int(r.fi))
	}
	fid, fid2 := r.fid, r.fid2
	if r.keep {
		fid = 0
	}
	if r.op == p9OpRead || r.op == p9OpWrite || r.op == p9OpFstat || r.op == p9OpGetdents ||
		r.op == p9OpFsync || r.op == p9OpFsetattr {
		fid, fid2 = 0, 0 // the open file's fid, not the call's
	}
	switch {
	case fid != 0:
		p9SendClunk(i, slot, fid)
		if fid2 != 0 {
			p9Clunk(i, fid2)
		}
	case fid2 != 0:
		p9SendClunk(i, slot, fid2)
	default:
		p9Release(i, slot, cpu)
	}
}

// p9CopyOut copies data to the caller's buffer (r.buf, at most r.n): the count, or EFAULT.
func p9CopyOut(r *p9Req, data []byte) int64 {
	if !r.waiting {
		return 0
	}
	c := min(uintptr(len(data)), r.n)
	if c > 0 && !userRange(r.buf, c, true) {
		return -EFAULT
	}
	copyOut(r.buf, data[:c])
	return int64(c)
}

// p9StatOf converts a Rgetattr to what stat reports: the share's files are on a device of their
// own (one per share), with the host's inode numbers.
func p9StatOf(i int, a *p9.Attr) fileStat {
	return fileStat{
		dev: 0x30 + uint64(i), ino: a.Qid.Path, nlink: a.Nlink, rdev: a.Rdev, size: a.Size,
		blksize: a.Blksize, blocks: a.Blocks, mode: a.Mode, uid: a.UID, gid: a.GID,
		atime: int64(a.Atime.Sec)*1e9 + int64(a.Atime.Nsec),
		mtime: int64(a.Mtime.Sec)*1e9 + int64(a.Mtime.Nsec),
		ctime: int64(a.Ctime.Sec)*1e9 + int64(a.Ctime.Nsec),
	}
}

// p9PutStat writes a stat or statx of a to the caller's buffer.
func p9PutStat(i int, r *p9Req, a *p9.Attr) int64 {
	if !r.waiting {
		return 0
	}
	st := p9StatOf(i, a)
	if r.statx {
		if !userRange(r.buf, statxSize, true) {
			return -EFAULT
		}
		putStatx(r.buf, &st)
		return 0
	}
	return putStatOf(st, r.buf)
}

// p9Install makes the opened fid an open file of the process: the fd is the call's result.
func p9Install(i, slot int, a *p9.Attr, cpu int) {
	r := &p9s[i].req[slot]
	if !r.waiting {
		p9Finish(i, slot, 0, cpu) // the thread is gone: the fid is clunked
		return
	}
	fd := openFile(kind9p, r.flags&(oAccmode|oNonblock|oAppend|oCloexec), uint64(i)<<32|uint64(r.fid))
	if fd >= 0 {
		f, fi := fdFile(int32(fd))
		f.pos = 0
		p9Files[fi] = p9FileInfo{size: int64(a.Size), dir: a.Mode&sIFMT == sIFDIR, ino: a.Qid.Path}
		r.keep = true
	}
	p9Finish(i, slot, fd, cpu)
}

// p9Dirents converts a Rreaddir's entries to struct linux_dirent64 records in the caller's
// buffer (as sysGetdents64), as many as fit; the directory's position becomes the cookie of
// the last one given. EINVAL if not even the first fits.
func p9Dirents(r *p9Req, data []byte) int64 {
	if !r.waiting {
		return 0
	}
	if !userRange(r.buf, r.n, true) {
		return -EFAULT
	}
	done := uintptr(0)
	for len(data) > 0 {
		qid, off, typ, name, rest, ok, _ := p9.NextDirent(data)
		if !ok {
			break
		}
		reclen := (19 + uintptr(len(name)) + 1 + 7) &^ 7
		if done+reclen > r.n {
			if done == 0 {
				return -EINVAL
			}
			break
		}
		p := r.buf + done
		zeroUser(p, reclen)
		store64(p, qid.Path)
		store64(p+8, off)
		store16(p+16, uint16(reclen))
		store8(p+18, typ)
		copyOut(p+19, name)
		done += reclen
		files[r.fi].pos = int64(off)
		data = rest
	}
	return int64(done)
}

// Symbolic links in a share. QEMU's server does not walk through a link (its local driver opens
// each name with O_NOFOLLOW): a walk stops after a link, and Rwalk's last qid says it is one. The
// kernel then resolves it as Linux's path walk would: Treadlink, the target put in the link's
// place in the path, and the walk again from the share's root (or the dirfd it started from).
// Relative targets only: an absolute one names the host's file system, which the guest does not
// see (EXDEV, logged once). At most 40 links a call (ELOOP).

// p9WalkFailed gives back the fid of a walk that failed: a new fid was never made (only the
// number is freed), a continued walk's fid still names where the last walk ended (clunked).
func p9WalkFailed(i int, fid *uint32, cont bool) {
	if cont {
		p9Clunk(i, *fid)
	} else {
		p9FreeFid(i, *fid)
	}
	*fid = 0
}

// p9FollowPartial resolves the link after which a walk of phase 0 stopped: its first n names of
// the batch lead to the link. The path to the link is walked to a new fid (phase 4), then read.
func p9FollowPartial(i, slot int, n int, cpu int) {
	r := &p9s[i].req[slot]
	b := r.batch.bytes()
	k := p9NamesEnd(b, n) // where the n-th name ends in the batch
	// What follows the link: the batch's other names, then the unwalked path.
	r.rest.n = copy(r.rest.b[:], b[k:])
	p9Append(&r.rest, r.path.bytes())
	p9Append(&r.done, b[:k])                     // done is now the link's own path (kept for p9Resolved)
	r.path.n = copy(r.path.b[:], r.done.bytes()) // walked again, to a fid on the link
	r.phase = 4
	if !p9Walk(i, slot) {
		p9Finish(i, slot, -EIO, cpu)
	}
}

// p9ReadLink asks for the target of the link fid names.
func p9ReadLink(i, slot int) {
	r := &p9s[i].req[slot]
	r.phase = 4
	p9Send(i, slot, p9.Readlink(p9s[i].dev.Out(slot), uint16(slot), r.fid), p9.Treadlink)
}

// p9Resolved puts target in the link's place and walks the new path from the start.
func p9Resolved(i, slot int, target []byte, cpu int) {
	r := &p9s[i].req[slot]
	if r.links++; r.links > vfs.MaxSymlinks {
		p9Finish(i, slot, -ELOOP, cpu)
		return
	}
	if len(target) == 0 || target[0] == '/' {
		klogOnce(&p9AbsLink, "virtio-9p: an absolute symbolic link in a share is not followed (EXDEV)")
		p9Finish(i, slot, -EXDEV, cpu)
		return
	}
	// The new path: the link's directory (done, less the link's name), the target, the rest.
	var np p9Path
	np.n = copy(np.b[:], r.done.bytes())
	for np.n > 0 && np.b[np.n-1] != '/' {
		np.n--
	}
	p9Append(&np, target)
	p9Append(&np, r.rest.bytes())
	p9Clunk(i, r.fid)
	r.fid = 0
	p9Clean(&r.path, np.bytes())
	r.done.n, r.rest.n, r.phase = 0, 0, 0
	if !p9Walk(i, slot) {
		p9Finish(i, slot, -EIO, cpu)
	}
}

var p9AbsLink bool

// p9Append adds name (a path) to p, with a slash between.
func p9Append(p *p9Path, name []byte) {
	if len(name) == 0 {
		return
	}
	if p.n > 0 && p.n < len(p.b) {
		p.b[p.n] = '/'
		p.n++
	}
	p.n += copy(p.b[p.n:], name)
}

// p9NamesEnd is where the n-th name of a slash-separated path ends (after n names).
func p9NamesEnd(b []byte, n int) int {
	k := 0
	for n > 0 && k < len(b) {
		for k < len(b) && b[k] == '/' {
			k++
		}
		for k < len(b) && b[k] != '/' {
			k++
		}
		n--
	}
	return k
}
