// Directory entries: iterating over Rreaddir's data, every entry validated.
// SPDX-License-Identifier: BSD-3-Clause

package p9

// DirentFixed is a directory entry without its name's bytes: qid[13] offset[8] type[1]
// len[2], then name[len].
const DirentFixed = QidSize + 8 + 1 + 2

// NextDirent takes the first directory entry off data (Rreaddir's) and returns it and the
// entries after it:
//
//	for rest := data; ; {
//		qid, off, typ, name, r, ok, why := p9.NextDirent(rest)
//		if !ok { ...; break } // why != "": malformed; why == "": no more entries
//		rest = r
//	}
//
// offset is the cookie to send as the next Treaddir's offset to continue after this entry;
// typ is the entry's d_type (DT_DIR 4, DT_REG 8, DT_LNK 10, ...; passed through); name is a
// sub-slice of data. An entry that runs past data, or whose name is empty, longer than NameMax
// or holds '/' or NUL, is malformed: ok false, why set, and the caller drops the rest of the
// reply (the entries before it were good). Each call consumes at least DirentFixed bytes, so
// a loop over any data ends.
func NextDirent(data []byte) (qid Qid, offset uint64, typ uint8, name, rest []byte, ok bool, why string) {
	if len(data) == 0 {
		return Qid{}, 0, 0, nil, nil, false, ""
	}
	r := reader{b: data}
	qid = r.qid()
	offset = r.u64()
	typ = r.u8()
	name = r.str()
	if r.bad {
		return Qid{}, 0, 0, nil, nil, false, whyDirent
	}
	if !direntName(name) {
		return Qid{}, 0, 0, nil, nil, false, whyDirName
	}
	return qid, offset, typ, name, r.b[r.off:], true, ""
}
