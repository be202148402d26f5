// Package vfs is gmpos's file system: one tree of inodes in memory (a tmpfs), filled at boot
// from the runner's initramfs, with the path walk and the operations Linux's system calls need.
//
// It is the layer below the kernel's file system calls (kernel/sys_path.go, kernel/fd_file.go):
// those copy the user's path and buffers and own the fd table; this package owns names, inodes
// and file data. It knows nothing of user memory, threads or the architecture, so it is tested
// hosted (vfs_test.go) and its decoders fuzzed (fuzz_test.go).
//
// # The model (as Linux's, Documentation/filesystems/vfs.rst, in miniature)
//
//   - An inode (inode.go) is a file: its type and permission bits, link count, size, times, and
//     its data. Inodes live in a fixed table; an inode number is the index (1 is the root).
//   - File data (data.go) lives in 4 KiB frames from the kernel's frame allocator (kernel/mm),
//     found through a radix tree of index frames — the page cache of a tmpfs is all there is.
//     A file from the initramfs reads its bytes where the loader put them, and gets frames of
//     its own at its first write (copy on write).
//   - A directory (dir.go) is a file of variable-length records {ino, reclen, namelen, type,
//     name} that never cross a page, as ext2's; "." and ".." are real records.
//   - The path walk (namei.go) follows Linux's path_resolution(7): "/" and the working directory
//     as starting points, "." and "..", symbolic links (40 at most: ELOOP), a trailing slash
//     demanding a directory, ENAMETOOLONG, ENOTDIR for a component that is not a directory.
//   - The operations (ops.go) are the inode operations of the system calls: create, mkdir,
//     unlink, rmdir, rename (with RENAME_NOREPLACE and RENAME_EXCHANGE), link, symlink,
//     readlink, truncate, and each one's errors in Linux's order.
//
// Everyone is root (uid 0, gid 0): permission bits and owners are kept and reported (chown
// works) but only X_OK is checked (as for root). An unlinked file lives on while an open file
// refers to it (Opens).
//
// # Contexts and locking
//
// Every function runs in the kernel's trap context under the big kernel lock, which protects all
// of the package's state: no allocation, no write barriers (no Go pointers in the tables: frames
// are physical addresses, names are byte slices of the caller's or of frames), no unbounded
// recursion (symbolic links are followed with an explicit stack; freeing a file's frames
// recurses at most maxDepth levels). Errors are Linux errno values (errno.go), the reasons for
// malformed archives constant strings.
package vfs
