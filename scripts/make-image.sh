#!/bin/bash
# The guest image: initramfs/files.list (@B@ is the build directory of the
# base, @TOP@ the repository), busybox's applets as links, and a kselftest
# install tree, packed by the kernel's own gen_initramfs.sh.  The list is kept
# beside the image (check-upstream packs its own tests with it).
# usage: make-image.sh SRC OBJ KSELFTEST-ROOT IMAGE.cpio
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/base.sh"
src=$1 obj=$2 kstroot=$3 image=$4
list=${image%.cpio}.list
{ sed -e "s|@B@|$B|g" -e "s|@TOP@|$top|g" "$top/initramfs/files.list"
  busybox --list-full | grep -vxE 'usr/bin/timeout|bin/busybox' |
	sed 's|^\(.*\)$|slink /\1 /bin/busybox 0777 0 0|'
  echo "slink /bin/timeout /bin/busybox 0777 0 0"
} > "$list"
(cd "$obj" && "$src/usr/gen_initramfs.sh" -o "$image.tmp" "$list" \
	-u squash -g squash "$kstroot")
mv "$image.tmp" "$image"
