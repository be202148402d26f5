// Package sdimage writes a Raspberry Pi SD card image: an MBR partition table with one FAT32
// partition that holds the boot files — the GPU firmware (FirmwareFiles, from Debian's
// raspi-firmware through gmpos/qemu/debfetch), config.txt (ConfigTxt) and the kernel image
// kernel8.img. `gmpos image -board rpi3|rpi4 -o sd.img PKG` (qemu/main.go) calls it; the result
// is written to a card with dd or Raspberry Pi Imager.
//
// # The image
//
//	sector 0          MBR: one partition, type 0x0C (FAT32, LBA), bootable, no boot code
//	sectors 1-8191    empty: the partition starts at 4 MiB
//	sector 8192-end   FAT32 volume "GMPOSBOOT", the files at its root (and at most one
//	                  directory level, e.g. overlays/)
//
// The Pi's boot ROM (Pi 3) and its EEPROM bootloader (Pi 4) read the first partition of an MBR
// table and find the firmware by name on its FAT file system; nothing on the card is executed
// by an x86 BIOS, so the MBR holds no boot code. The partition starts at 4 MiB, as in Raspberry
// Pi OS's images, so that it is aligned to the card's allocation unit (4 MiB on most SDHC
// cards) and the file system's writes never straddle two of them. The volume is FAT32, like
// Raspberry Pi OS's boot partition, and large enough to be FAT32 by the specification's rule
// (at least 65525 clusters) so that no reader takes it for FAT16: hence the smallest image,
// MinSizeMiB(nil).
//
// # Why go-diskfs, and how far it is trusted
//
// The partition table and the file system come from github.com/diskfs/go-diskfs (its mbr and
// fat32 packages only, not its top-level package, which would pull in ext4, squashfs and ISO
// 9660 with their compressors): pure Go, so the image is written without root, loop devices,
// mkfs.vfat or mtools, on any host that builds gmpos. Version v1.7.0 has gaps, covered here:
//
//   - It writes 0 as the boot sector's hidden-sector count (BPB_HiddSec), which should be the
//     partition's first LBA: Write sets it in the boot sector and its backup.
//   - Two long names that share their first six characters and extension get the same 8.3
//     alias (e.g. bcm2710-rpi-3-b.dtb and bcm2710-rpi-3-b-plus.dtb both become BCM271~1.DTB);
//     v1.9.4 numbers them apart but points ".." of the root's subdirectories at cluster 2
//     instead of 0, which fsck.fat reports. Write
//     refuses such a pair with an error that names both (no board needs one today).
//   - It rounds the FAT's size down, which for 17 image sizes around 16 GiB leaves the FAT
//     shorter than the volume (layout.go, fatCovers): Write refuses those sizes.
//   - Its allocator may hand out clusters past the end of the data area when the volume is
//     nearly full, and it rounds nothing up for you: Write computes what the files need
//     (layout.go) and refuses a size that is too small, saying how big it must be.
//
// After writing, Write reads every file back through go-diskfs's reader and compares it, so a
// regression in a later go-diskfs shows up as an error rather than as a board that does not
// boot. (The reader has a gap of its own: a read that starts in the middle of a cluster
// returns bytes past the end of the file, so each file is read in one call from its start.)
// The image is written to a temporary file next to the output and renamed into place.
package sdimage
