#!/usr/bin/env bash
# Installs Debian's ffmpeg (ffprobe included) and espeak-ng for the video-pipeline example's tests:
# its providers really synthesise speech and render clips, and finalize really probes the MP4.
# Idempotent and quiet: does nothing when all three commands exist.
set -euo pipefail

missing=()
for cmd in ffmpeg ffprobe espeak-ng; do
  command -v "$cmd" >/dev/null 2>&1 || missing+=("$cmd")
done
if [ "${#missing[@]}" -eq 0 ]; then
  echo "media: ffmpeg, ffprobe and espeak-ng present"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "media: installing Debian ffmpeg and espeak-ng (missing: ${missing[*]})"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get -o DPkg::Lock::Timeout=600 install -y -qq \
  --no-install-recommends ffmpeg espeak-ng >/dev/null
for cmd in ffmpeg ffprobe espeak-ng; do
  if ! command -v "$cmd" >/dev/null 2>&1; then
    echo "media: install finished but $cmd is missing" >&2
    exit 1
  fi
done
echo "media: installed ffmpeg, ffprobe and espeak-ng"
