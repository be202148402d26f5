// The whole-machine profile: the kernel's samples (kernel/profile.go) as a pprof profile.
// SPDX-License-Identifier: BSD-3-Clause

package runner

import (
	"debug/elf"
	"debug/gosym"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/google/pprof/profile"
)

// ProfileHz is -profile's default sampling rate (kernel option profile=HZ).
const ProfileHz = 250

// ProfileStats summarizes a written profile.
type ProfileStats struct {
	Samples, User, Kernel, Idle, Lost int
	Hz                                int
}

// symbolizer maps program counters of one image to functions and lines (.gopclntab).
type symbolizer struct {
	file       string
	start, end uint64 // the image's loaded range
	table      *gosym.Table
	mapping    *profile.Mapping
}

func newSymbolizer(path, name string) (*symbolizer, error) {
	f, err := elf.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	s := &symbolizer{file: name}
	for _, p := range f.Progs {
		if p.Type != elf.PT_LOAD {
			continue
		}
		if s.start == 0 || p.Vaddr < s.start {
			s.start = p.Vaddr
		}
		s.end = max(s.end, p.Vaddr+p.Memsz)
	}
	pcln, text := f.Section(".gopclntab"), f.Section(".text")
	if pcln == nil || text == nil {
		return nil, fmt.Errorf("%s: no .gopclntab or .text", path)
	}
	data, err := pcln.Data()
	if err != nil {
		return nil, err
	}
	if s.table, err = gosym.NewTable(nil, gosym.NewLineTable(data, text.Addr)); err != nil {
		return nil, err
	}
	return s, nil
}

// ProfRecord is one decoded "prof" record (docs/contract.md).
type ProfRecord struct {
	Kind     string // user, idle, or the kernel's name for the work
	CPU      int
	PID, TID int64
	PCs      []uint64 // innermost first
}

// ParseProfRecord decodes the text of a "prof" record — guest output, so every field is checked.
func ParseProfRecord(text string) (ProfRecord, error) {
	var r ProfRecord
	f := strings.Fields(text)
	if len(f) < 4 {
		return r, fmt.Errorf("%d fields, want at least 4", len(f))
	}
	r.Kind = f[0]
	for _, name := range strings.SplitN(r.Kind, "/", 2) {
		if name == "" {
			return r, fmt.Errorf("bad kind %q", r.Kind)
		}
		for _, c := range name {
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '-') {
				return r, fmt.Errorf("bad kind %q", r.Kind)
			}
		}
	}
	cpu, err1 := strconv.Atoi(f[1])
	pid, err2 := strconv.ParseInt(f[2], 10, 32)
	tid, err3 := strconv.ParseInt(f[3], 10, 32)
	if err1 != nil || err2 != nil || err3 != nil || cpu < 0 || cpu > 255 || pid < 0 || tid < 0 {
		return r, fmt.Errorf("bad cpu, pid or tid in %q", text)
	}
	r.CPU, r.PID, r.TID = cpu, pid, tid
	if len(f)-4 > 64 {
		return r, fmt.Errorf("%d frames, more than the kernel sends", len(f)-4)
	}
	for _, h := range f[4:] {
		hex, ok := strings.CutPrefix(h, "0x")
		pc, err := strconv.ParseUint(hex, 16, 64)
		if !ok || err != nil || pc == 0 {
			return r, fmt.Errorf("bad pc %q", h)
		}
		r.PCs = append(r.PCs, pc)
	}
	return r, nil
}

// WriteProfile turns the kernel's profile records into a pprof profile at path (gzipped
// protobuf: go tool pprof reads it). Each record is one sample worth 1/HZ s of a core: program
// frames symbolized from bootELF (the program and the kernel) or exeELF (/bin/NAME, the children
// execve loads; "" if none), and, for kernel and idle time, a frame of their own on top
// ("[kernel] futex", "[idle]"; a BKL wait is two: "[kernel] bkl-wait" over "[kernel] futex").
// Samples carry the core and thread as labels.
func WriteProfile(path string, recs []Record, bootELF, exeELF string) (ProfileStats, error) {
	var st ProfileStats
	var images []*symbolizer
	for _, im := range [][2]string{{bootELF, "boot image (kernel and program)"}, {exeELF, "/bin executable (children)"}} {
		if im[0] == "" {
			continue
		}
		s, err := newSymbolizer(im[0], im[1])
		if err != nil {
			return st, err
		}
		images = append(images, s)
	}
	p := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}},
		PeriodType: &profile.ValueType{Type: "cpu", Unit: "nanoseconds"},
	}
	for i, s := range images {
		s.mapping = &profile.Mapping{ID: uint64(i + 1), Start: s.start, Limit: s.end, File: s.file, HasFunctions: true, HasFilenames: true, HasLineNumbers: true}
		p.Mapping = append(p.Mapping, s.mapping)
	}
	funcs := map[[2]string]*profile.Function{}
	function := func(name, file string) *profile.Function {
		if f, ok := funcs[[2]string{name, file}]; ok {
			return f
		}
		f := &profile.Function{ID: uint64(len(p.Function) + 1), Name: name, SystemName: name, Filename: file}
		funcs[[2]string{name, file}] = f
		p.Function = append(p.Function, f)
		return f
	}
	locs := map[uint64]*profile.Location{}
	location := func(pc uint64, caller bool) *profile.Location {
		if l, ok := locs[pc]; ok {
			return l
		}
		l := &profile.Location{ID: uint64(len(p.Location) + 1), Address: pc}
		look := pc
		if caller {
			look-- // a return address: the call is the instruction before
		}
		for _, s := range images {
			if pc < s.start || pc >= s.end {
				continue
			}
			l.Mapping = s.mapping
			if file, line, fn := s.table.PCToLine(look); fn != nil {
				l.Line = []profile.Line{{Function: function(fn.Name, file), Line: int64(line)}}
			}
			break
		}
		if l.Line == nil {
			l.Line = []profile.Line{{Function: function(fmt.Sprintf("0x%x", pc), "")}}
		}
		locs[pc] = l
		p.Location = append(p.Location, l)
		return l
	}
	named := map[string]*profile.Location{}
	pseudo := func(name string) *profile.Location {
		if l, ok := named[name]; ok {
			return l
		}
		l := &profile.Location{ID: uint64(len(p.Location) + 1), Line: []profile.Line{{Function: function(name, "")}}}
		named[name] = l
		p.Location = append(p.Location, l)
		return l
	}
	for _, r := range recs {
		switch r.Kind {
		case "prof-hz":
			hz, err := strconv.Atoi(r.Text)
			if err != nil || hz <= 0 {
				return st, fmt.Errorf("bad prof-hz record %q", r.Text)
			}
			st.Hz = hz
			p.Period = int64(1e9 / hz)
		case "prof-lost":
			st.Lost, _ = strconv.Atoi(r.Text)
		case "prof":
			pr, err := ParseProfRecord(r.Text)
			if err != nil || st.Hz == 0 {
				return st, fmt.Errorf("bad prof record %q: %v", r.Text, err)
			}
			var stack []*profile.Location
			switch pr.Kind {
			case "user":
				st.User++
			case "idle":
				st.Idle++
				stack = append(stack, pseudo("[idle]"))
			default:
				// "bkl-wait/futex": the lock wait, over the work that waited for it.
				st.Kernel++
				for _, name := range strings.SplitN(pr.Kind, "/", 2) {
					stack = append(stack, pseudo("[kernel] "+name))
				}
			}
			for i, pc := range pr.PCs {
				stack = append(stack, location(pc, i > 0))
			}
			if len(stack) == 0 {
				continue
			}
			p.Sample = append(p.Sample, &profile.Sample{
				Location: stack,
				Value:    []int64{1, p.Period},
				Label:    map[string][]string{"cpu": {strconv.Itoa(pr.CPU)}},
				NumLabel: map[string][]int64{"pid": {pr.PID}, "tid": {pr.TID}},
			})
			st.Samples++
		}
	}
	if st.Hz == 0 {
		return st, fmt.Errorf("the kernel sent no profile (was profile=HZ on its command line?)")
	}
	if err := p.CheckValid(); err != nil {
		return st, err
	}
	out, err := os.Create(path)
	if err != nil {
		return st, err
	}
	if err := p.Write(out); err != nil {
		out.Close()
		return st, err
	}
	return st, out.Close()
}
