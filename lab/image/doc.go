// Package image builds the soft-RoCE lab's VM image — a Debian kernel and an initramfs — from
// Debian packages, with no root filesystem and no network access beyond the apt mirror.
//
// The package list with exact versions is packages.lock (embedded). A build:
//
//		b := &image.Builder{}                 // cache: ${XDG_CACHE_HOME:-~/.cache}/fabricctl/lab
//		img, err := b.Build(ctx)              // img.Kernel, img.Initrd
//
//	 1. fetches every pinned package with `apt-get download NAME=VERSION` into CACHE/debs (once per
//	    version; a version the mirror no longer serves fails with ErrNotServed naming the package
//	    and the version offered now),
//	 2. unpacks them with dpkg-deb, runs the staged kmod as depmod on the kernel tree (the kernel
//	    .deb ships no modules.dep) and orders the wanted Modules dependencies-first,
//	 3. copies the Binaries and DlopenedFiles with their shared-library closure, resolved by the
//	    staged loader (`ld.so --library-path STAGE --list`), failing when a library resolves
//	    outside the stage (it would be missing in the guest),
//	 4. adds busybox applets, sshd's configuration, the guest /init and the lab-* helper scripts
//	    from guest/ (embedded), and writes a gzip'd cpio "newc" archive.
//
// Images live in CACHE/images/HASH, where HASH covers the lock, the guest files and the builder
// version: a build with unchanged inputs returns at once with Image.Reused set.
//
// The pure parts — ParseLock, ParseModulesDep/LoadOrder, ParseLdList/StagedPaths and Tree with
// its cpio writer — are unit-tested on fixtures. Builder.Build takes an exclusive lock on the
// cache directory, so concurrent builds (also from several processes) are safe; a Tree is not
// safe for concurrent use.
package image
