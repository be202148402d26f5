// Reading a card image back: what a Pi's boot ROM and firmware will find on it.
// SPDX-License-Identifier: BSD-3-Clause

package sdimage

import (
	"fmt"
	"os"

	"github.com/diskfs/go-diskfs/backend/file"
	"github.com/diskfs/go-diskfs/filesystem/fat32"
	"github.com/diskfs/go-diskfs/partition/mbr"
)

// ReadRoot returns the files in the root directory of the first partition of the image at
// path, by name: the tests' way to check what Write made (gmpos's SD card test boots the
// kernel8.img it finds). Only for images Write made: go-diskfs's reader is not hardened against
// hostile volumes — a fuzzer found corrupted FATs on which it does not return — so it is not
// offered for cards from elsewhere. A missing table, a partition that is not FAT32 LBA, or a
// volume that does not read is an error.
func ReadRoot(path string) (map[string][]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	b := file.New(f, true)
	table, err := mbr.Read(b, sectorSize, sectorSize)
	if err != nil || len(table.Partitions) == 0 {
		return nil, fmt.Errorf("sdimage: %s: no MBR partition table (%v)", path, err)
	}
	p := table.Partitions[0]
	if p.Type != mbr.Fat32LBA || p.GetStart()+p.GetSize() > st.Size() {
		return nil, fmt.Errorf("sdimage: %s: the first partition is not a FAT32 (LBA) one inside the image", path)
	}
	fs, err := fat32.Read(b, p.GetSize(), p.GetStart(), sectorSize)
	if err != nil {
		return nil, fmt.Errorf("sdimage: %s: %w", path, err)
	}
	entries, err := fs.ReadDir("/")
	if err != nil {
		return nil, fmt.Errorf("sdimage: %s: %w", path, err)
	}
	out := map[string][]byte{}
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		data, err := readFile(fs, e.Name(), int(e.Size()))
		if err != nil {
			return nil, fmt.Errorf("sdimage: %s: %s: %w", path, e.Name(), err)
		}
		if len(data) != int(e.Size()) {
			return nil, fmt.Errorf("sdimage: %s: %s: %d bytes, the directory says %d", path, e.Name(), len(data), e.Size())
		}
		out[e.Name()] = data
	}
	return out, nil
}
