#!/usr/bin/env bash
# Installs the system libraries Qt's X11 (xcb) window plugin needs but the PySide6 wheel does not
# carry. Only for showing a real window: tests and snapshots render offscreen without them.
# Quiet when nothing is missing; on non-Debian systems it prints what to install.
set -u
venv=${1:-.venv}
plugin=$(ls "$venv"/lib/python3*/site-packages/PySide6/Qt/lib/libQt6XcbQpa.so.6 2>/dev/null | head -n1)
[ "$(uname -s)" = Linux ] && [ -n "$plugin" ] || exit 0
# Without a display there is no window to show (the app says so itself): install nothing.
[ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ] || exit 0
missing=$(ldd "$plugin" 2>/dev/null | awk '/not found/ {print $1}' | sort -u)
[ -n "$missing" ] || exit 0
declare -A debian=(
  [libxcb-icccm.so.4]=libxcb-icccm4 [libxcb-keysyms.so.1]=libxcb-keysyms1
  [libxcb-cursor.so.0]=libxcb-cursor0 [libxcb-image.so.0]=libxcb-image0
  [libxcb-render-util.so.0]=libxcb-render-util0 [libxcb-xkb.so.1]=libxcb-xkb1
  [libxkbcommon-x11.so.0]=libxkbcommon-x11-0 [libxcb-shape.so.0]=libxcb-shape0
  [libxcb-randr.so.0]=libxcb-randr0 [libxcb-xinerama.so.0]=libxcb-xinerama0
  [libEGL.so.1]=libegl1 [libGL.so.1]=libgl1 [libfontconfig.so.1]=libfontconfig1
  [libdbus-1.so.3]=libdbus-1-3 [libxkbcommon.so.0]=libxkbcommon0
)
packages=""
for lib in $missing; do packages="$packages ${debian[$lib]:-}"; done
packages=$(echo $packages)
echo "Qt's window plugin needs system libraries that are missing: $(echo $missing)"
if [ -n "$packages" ] && command -v apt-get >/dev/null; then
  sudo=""; [ "$(id -u)" = 0 ] || sudo="sudo"
  echo "Installing (Debian/Ubuntu): $packages"
  $sudo apt-get update -qq && $sudo apt-get install -y -qq $packages && exit 0
  echo "Could not install them; run: sudo apt-get install $packages" >&2
else
  echo "Install them with your system's package manager (Debian/Ubuntu names:$packages)." >&2
fi
exit 0
