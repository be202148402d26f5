// Checking the files before anything is written: names FAT can hold, no duplicates.
// SPDX-License-Identifier: BSD-3-Clause

package sdimage

import (
	"fmt"
	"strings"
)

// maxNameLen is the longest long file name (a component of a path), in characters.
const maxNameLen = 255

// checkFiles checks every file's name and size and returns the directories the names use,
// each once, in the order they first appear.
//
// Names are printable ASCII without the characters FAT forbids in long names (" * / : < > ?
// \ |), at most maxNameLen characters per component, with at most one directory level.
// Refused besides: a component that starts with a dot (go-diskfs cannot make an 8.3 alias
// for it) or ends with a dot or a space (Windows and Linux strip those, so the file would be
// read back under another name). ASCII only, because go-diskfs makes the 8.3 alias byte by
// byte, and the Pi's boot files all have ASCII names anyway.
func checkFiles(files []File) ([]string, error) {
	if len(files) == 0 {
		return nil, fmt.Errorf("sdimage: no files")
	}
	var dirs []string
	isDir := map[string]string{}  // upper case → as first given
	isFile := map[string]string{} // upper case → as given
	for _, f := range files {
		parts := strings.Split(f.Name, "/")
		if len(parts) > 2 {
			return nil, fmt.Errorf("sdimage: %q: at most one directory level", f.Name)
		}
		for _, p := range parts {
			if err := checkName(p); err != nil {
				return nil, fmt.Errorf("sdimage: %q: %v", f.Name, err)
			}
		}
		// go-diskfs gives every file a cluster when it creates the entry and keeps it for an
		// empty one, which fsck.fat reports ("File size is 0 bytes, cluster chain length is
		// > 0 bytes"). No boot file is empty, so rather than patch the FAT, refuse.
		if len(f.Data) == 0 {
			return nil, fmt.Errorf("sdimage: %q is empty: go-diskfs cannot write an empty file correctly", f.Name)
		}
		if int64(len(f.Data)) > maxFileSize {
			return nil, fmt.Errorf("sdimage: %q: %d bytes: FAT32 files are smaller than 4 GiB", f.Name, len(f.Data))
		}
		// FAT compares names without case: CONFIG.TXT and config.txt are the same file.
		key := strings.ToUpper(f.Name)
		if prev, ok := isFile[key]; ok {
			return nil, fmt.Errorf("sdimage: %q and %q: the same name to FAT, which ignores case", prev, f.Name)
		}
		if prev, ok := isDir[key]; ok {
			return nil, fmt.Errorf("sdimage: %q is a file, but %q makes it a directory", f.Name, prev)
		}
		isFile[key] = f.Name
		if len(parts) == 2 {
			dk := strings.ToUpper(parts[0])
			if prev, ok := isFile[dk]; ok {
				return nil, fmt.Errorf("sdimage: %q is a file, but %q makes it a directory", prev, f.Name)
			}
			if _, ok := isDir[dk]; !ok {
				isDir[dk] = f.Name
				dirs = append(dirs, parts[0])
			}
		}
	}
	return dirs, nil
}

// checkName checks one component of a path.
func checkName(s string) error {
	switch {
	case s == "":
		return fmt.Errorf("empty name")
	case len(s) > maxNameLen:
		return fmt.Errorf("%d characters, more than FAT's %d", len(s), maxNameLen)
	case s[0] == '.':
		return fmt.Errorf("%q starts with a dot", s)
	case strings.HasSuffix(s, ".") || strings.HasSuffix(s, " "):
		return fmt.Errorf("%q ends with a dot or a space, which readers strip", s)
	}
	for _, c := range []byte(s) {
		if c < 0x20 || c > 0x7e {
			return fmt.Errorf("%q: only printable ASCII", s)
		}
		if strings.IndexByte(`"*/:<>?\|`, c) >= 0 {
			return fmt.Errorf("%q: FAT names cannot hold %q", s, c)
		}
	}
	return nil
}
