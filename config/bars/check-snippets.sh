#!/usr/bin/env bash
# Runs the bar snippets in this directory against the real programs, headless, with status files made
# from the reviewed golden outputs in Tests/Fixtures/reports/golden (what forecastd writes for the
# recorded reports). No daemon and no network are needed.
#
#   config/bars/check-snippets.sh
#
# tmux is required (it is what most users run). i3blocks, i3status and conky are exercised when installed
# (Debian: apt-get install i3blocks i3status conky-cli) and reported as skipped otherwise; polybar is drawn
# under Xvfb and Waybar in a headless sway, and their pixels checked, when polybar, xvfb and x11-apps, or
# waybar, sway and grim, are installed. i3status-rust is not packaged for Debian 12, so its snippet is not run.
# Exit status: 0 when every check that ran passed, 1 otherwise.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
golden="$root/Tests/Fixtures/reports/golden"
work=$(mktemp -d)
tmux_inner="forecastd-check-inner-$$"
tmux_outer="forecastd-check-outer-$$"

cleanup() {
    tmux -L "$tmux_inner" kill-server 2>/dev/null || true
    tmux -L "$tmux_outer" kill-server 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

# The snippets read $XDG_RUNTIME_DIR/forecastd/…: point it at a scratch directory.
export XDG_RUNTIME_DIR="$work/run"
status_dir="$XDG_RUNTIME_DIR/forecastd"
mkdir -p "$status_dir"

failures=0
pass() { printf 'ok    %s\n' "$1"; }
fail() { printf 'FAIL  %s\n' "$1"; failures=$((failures + 1)); }
skip() { printf 'skip  %s\n' "$1"; }

# Writes a golden output as the daemon writes a status file: the text and a newline.
publish() { # golden-file status-file
    { cat "$golden/$1"; echo; } > "$status_dir/$2.tmp" && mv "$status_dir/$2.tmp" "$status_dir/$2"
}

# Waits up to $2 seconds for command $1 to print something containing $3; prints the last output.
wait_for() {
    local command=$1 seconds=$2 expected=$3 output=""
    for _ in $(seq 1 $((seconds * 2))); do
        output=$(eval "$command" 2>/dev/null || true)
        [[ "$output" == *"$expected"* ]] && break
        sleep 0.5
    done
    printf '%s' "$output"
}

# --- tmux -------------------------------------------------------------------------------------------
if command -v tmux >/dev/null; then
    # The inner server runs the snippet; its client is attached inside a pane of the outer server, whose
    # capture is the status line exactly as a terminal would show it.
    publish day.tmux.txt tmux.txt
    tmux -L "$tmux_inner" -f /dev/null new-session -d -s inner -x 80 -y 5
    tmux -L "$tmux_inner" source-file "$here/tmux.conf"
    tmux -L "$tmux_inner" set -g status-interval 1
    tmux -L "$tmux_outer" -f /dev/null new-session -d -s outer -x 80 -y 6 \
        "env XDG_RUNTIME_DIR='$XDG_RUNTIME_DIR' TERM=screen tmux -L '$tmux_inner' attach -t inner"
    capture="tmux -L '$tmux_outer' capture-pane -p -t outer | tail -n 1"

    expected=$(cat "$golden/day.tmux.txt")
    line=$(wait_for "$capture" 10 "$expected")
    if [[ "$line" == *"$expected "* ]]; then
        pass "tmux status-right shows the status file: '${line##*  }'"
    else
        fail "tmux status-right: expected '$expected', the status line is '$line'"
    fi

    publish stale.tmux.txt tmux.txt
    expected=$(cat "$golden/stale.tmux.txt")
    line=$(wait_for "$capture" 10 "$expected")
    [[ "$line" == *"$expected "* ]] && pass "tmux picks up a replaced status file (stale: '$expected')" \
        || fail "tmux after replacing the file: expected '$expected', got '$line'"

    # forecastd doubles "#" in the tmux format: tmux must show one.
    printf '%s\n' "💭 12##C" > "$status_dir/tmux.txt"
    line=$(wait_for "$capture" 10 "12#C")
    [[ "$line" == *"💭 12#C "* ]] && pass "tmux shows an escaped '##' as '#'" \
        || fail "tmux '##' escaping: got '$line'"

    # Width: tmux must count every width-safe glyph as the two cells a terminal draws.
    glyphs=$(sed -n '/func emojiSafeGlyph/,/default: nil/p' "$root/Sources/Rendering/IconSet.swift" \
        | grep -o ': "[^"]*"' | cut -d'"' -f2 | sort -u)
    wrong=""
    for glyph in $glyphs; do
        tmux -L "$tmux_inner" set -g @forecastd_glyph "$glyph"
        [[ $(tmux -L "$tmux_inner" display -p '#{w:@forecastd_glyph}') == 2 ]] || wrong+="$glyph "
    done
    [[ -n "$glyphs" && -z "$wrong" ]] \
        && pass "tmux $(tmux -V | cut -d' ' -f2) counts all $(wc -w <<<"$glyphs") emoji-safe glyphs as 2 cells" \
        || fail "tmux miscounts emoji-safe glyphs: $wrong"
    tmux -L "$tmux_inner" set -g @forecastd_glyph "☁️"
    printf 'info  tmux %s counts "☁️" (U+2601 U+FE0F, the emoji set) as %s cell(s); terminals draw 2\n' \
        "$(tmux -V | cut -d' ' -f2)" "$(tmux -L "$tmux_inner" display -p '#{w:@forecastd_glyph}')"
else
    fail "tmux is not installed (apt-get install tmux)"
fi

# --- i3blocks ---------------------------------------------------------------------------------------
if command -v i3blocks >/dev/null; then
    # i3blocks prints the i3bar protocol; the last line is the bar with every block.
    for case in "stale:Samara ☁️ 19°C (stale 3 h):☁️ 19°C*:#888888" \
        "day:Bromsgrove ☁️ 12°C:☁️ 12°C:" "no_location:📍? no location:📍? no location:#FF5555"; do
        IFS=: read -r report full short color <<<"$case"
        publish "$report.i3blocks.txt" i3blocks.txt
        bar=$(timeout 2 i3blocks -c "$here/i3blocks.conf" 2>/dev/null | tail -n 1 || true)
        result=$(python3 - "$bar" <<'EOF'
import json, sys
blocks = json.loads(sys.argv[1].lstrip(","))
block = next(b for b in blocks if b.get("name") == "forecast")
print("%s:%s:%s" % (block.get("full_text", ""), block.get("short_text", ""), block.get("color", "")))
EOF
        )
        [[ "$result" == "$full:$short:$color" ]] && pass "i3blocks shows the $report block: $result" \
            || fail "i3blocks $report: expected '$full:$short:$color', got '$result'"
    done
else
    skip "i3blocks is not installed (apt-get install i3blocks)"
fi

# --- i3status read_file -----------------------------------------------------------------------------
if command -v i3status >/dev/null; then
    publish stale.text.txt forecast.txt
    { printf 'general {\n    output_format = "none"\n    interval = 1\n}\n'
      sed "s#/run/user/1000#$XDG_RUNTIME_DIR#" "$here/i3status.conf"; } > "$work/i3status.conf"
    line=$(timeout 3 i3status -c "$work/i3status.conf" 2>/dev/null | head -n 1 || true)
    expected=$(cat "$golden/stale.text.txt")
    [[ "$line" == "$expected" ]] && pass "i3status read_file shows: $line" \
        || fail "i3status read_file: expected '$expected', got '$line'"
    # As i3bar reads it: stale data must not be painted "good" (green).
    { printf 'general {\n    output_format = "i3bar"\n    colors = true\n    interval = 1\n}\n'
      sed "s#/run/user/1000#$XDG_RUNTIME_DIR#" "$here/i3status.conf"; } > "$work/i3status-i3bar.conf"
    block=$(timeout 3 i3status -c "$work/i3status-i3bar.conf" 2>/dev/null | sed -n 3p || true)
    [[ "$block" == *'"color":"#FFFFFF"'* ]] && pass "i3status paints stale data in the bar's text colour, not green" \
        || fail "i3status stale data colour: expected #FFFFFF, got '$block'"
    rm "$status_dir/forecast.txt"
    line=$(timeout 3 i3status -c "$work/i3status.conf" 2>/dev/null | head -n 1 || true)
    [[ "$line" == "forecast: no status file" ]] && pass "i3status without the file shows format_bad" \
        || fail "i3status without the file: got '$line'"
else
    skip "i3status is not installed (apt-get install i3status)"
fi

# --- conky ------------------------------------------------------------------------------------------
if command -v conky >/dev/null; then
    publish night.text.txt forecast.txt
    line=$(timeout 5 conky -c "$here/conky.conf" -i 1 2>/dev/null | head -n 1 || true)
    expected=$(cat "$golden/night.text.txt")
    [[ "$line" == "$expected" ]] && pass "conky shows: $line" || fail "conky: expected '$expected', got '$line'"
else
    skip "conky is not installed (apt-get install conky-cli)"
fi

# --- polybar (under Xvfb) ---------------------------------------------------------------------------
# polybar draws, so the check looks at the pixels: the snippet's module runs a stand-in forecastctl that
# prints what `forecastctl watch --format polybar` prints for a recorded report, and a screenshot must
# show the text in the colour of its %{F…} tag (grey for stale data, red for no location) and no other.
if command -v polybar >/dev/null && command -v Xvfb >/dev/null && command -v xwd >/dev/null; then
    mkdir -p "$work/bin"
    display=":$((90 + RANDOM % 900))"
    Xvfb "$display" -screen 0 400x24x24 >/dev/null 2>&1 &
    xvfb=$!
    sleep 1
    { printf '[bar/check]\nwidth = 100%%\nheight = 24\nfont-0 = DejaVu Sans:pixelsize=12\nmodules-left = forecast\n\n'
      sed -n '/^\[module\/forecast\]/,$p' "$here/polybar.ini"; } > "$work/polybar.ini"
    for case in "stale:888888:ff5555" "no_location:ff5555:888888"; do
        IFS=: read -r report colour other <<<"$case"
        printf '#!/bin/sh\ncat "%s"; echo; sleep 30\n' "$golden/$report.polybar.txt" > "$work/bin/forecastctl"
        chmod +x "$work/bin/forecastctl"
        PATH="$work/bin:$PATH" DISPLAY="$display" timeout 6 polybar -q -c "$work/polybar.ini" check >/dev/null 2>&1 &
        bar=$!
        sleep 3
        DISPLAY="$display" xwd -root -silent > "$work/shot.xwd" 2>/dev/null || true
        kill "$bar" 2>/dev/null || true
        wait "$bar" 2>/dev/null || true
        counts=$(python3 "$here/count-colours.py" "$work/shot.xwd" "$colour" "$other")
        read -r hits misses <<<"$counts"
        ((hits > 10 && misses == 0)) && pass "polybar draws the $report line in #$colour ($hits pixels)" \
            || fail "polybar $report: expected text in #$colour and none in #$other, got $hits and $misses pixels"
    done
    kill "$xvfb" 2>/dev/null || true
else
    skip "polybar is not installed with Xvfb and xwd (apt-get install polybar xvfb x11-apps)"
fi

# --- Waybar (in a headless sway) ---------------------------------------------------------------------
# The same idea for Waybar: sway runs headless, Waybar loads the snippet's module and style sheet, a
# stand-in forecastctl prints the waybar line of a recorded report, and grim's screenshot must show the
# text in the colour waybar-style.css gives its class (stale: grey; no_location: red). sway refuses to
# run as root, so as root the compositor and the bar run as "nobody".
if command -v sway >/dev/null && command -v waybar >/dev/null && command -v grim >/dev/null; then
    as=()
    [[ $(id -u) -eq 0 ]] && as=(runuser -u nobody --)
    wayland="$work/wayland"
    mkdir -p "$wayland/bin" "$wayland/run"
    chmod 755 "$work" "$wayland" "$wayland/bin"
    chmod 700 "$wayland/run"
    [[ $(id -u) -eq 0 ]] && chown nobody "$wayland/run"
    printf 'output HEADLESS-1 resolution 800x600\n' > "$wayland/sway.conf"
    { echo '{ "layer": "top", "position": "top", "height": 30, "modules-left": ["custom/forecast"],'
      sed -n '/"custom\/forecast": {/,$p' "$here/waybar-module.jsonc"; echo '}'; } > "$wayland/waybar.jsonc"
    { cat "$here/waybar-style.css"
      printf '\n* { font-family: "DejaVu Sans"; font-size: 14px; }\nwindow#waybar { background: #000000; }\n'; } \
        > "$wayland/style.css"
    chmod 644 "$wayland"/*.conf "$wayland"/*.jsonc "$wayland"/*.css
    session=(env XDG_RUNTIME_DIR="$wayland/run" WLR_BACKENDS=headless WLR_RENDERER=pixman WLR_LIBINPUT_NO_DEVICES=1)
    "${as[@]}" "${session[@]}" sway -c "$wayland/sway.conf" >/dev/null 2>&1 &
    sleep 2
    socket=$(cd "$wayland/run" 2>/dev/null && ls -d wayland-* 2>/dev/null | grep -v lock | head -n 1 || true)
    if [[ -z "$socket" ]]; then
        fail "sway did not start headless"
    else
        for case in "stale:888888:ff5555" "no_location:ff5555:888888"; do
            IFS=: read -r report colour other <<<"$case"
            printf '#!/bin/sh\ncat "%s"; echo; sleep 30\n' "$golden/$report.waybar.txt" > "$wayland/bin/forecastctl"
            chmod 755 "$wayland/bin/forecastctl"
            "${as[@]}" "${session[@]}" WAYLAND_DISPLAY="$socket" PATH="$wayland/bin:/usr/bin:/bin" \
                timeout 8 waybar -c "$wayland/waybar.jsonc" -s "$wayland/style.css" >/dev/null 2>&1 &
            sleep 3
            "${as[@]}" "${session[@]}" WAYLAND_DISPLAY="$socket" grim -t ppm "$wayland/run/shot.ppm" 2>/dev/null || true
            pkill -f "waybar -c $wayland/waybar.jsonc" 2>/dev/null || true
            sleep 0.5
            counts=$(python3 "$here/count-colours.py" "$wayland/run/shot.ppm" "$colour" "$other")
            read -r hits misses <<<"$counts"
            ((hits > 10 && misses == 0)) && pass "Waybar draws the $report module in #$colour ($hits pixels)" \
                || fail "Waybar $report: expected text in #$colour and none in #$other, got $hits and $misses pixels"
        done
    fi
    pkill -f "sway -c $wayland/sway.conf" 2>/dev/null || true
else
    skip "Waybar is not installed with sway and grim (apt-get install waybar sway grim)"
fi

skip "i3status-rust: not packaged for Debian 12"

if ((failures > 0)); then
    echo "$failures check(s) failed"
    exit 1
fi
echo "all checks that ran passed"
