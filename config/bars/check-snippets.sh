#!/usr/bin/env bash
# Runs the bar snippets in this directory against the real programs, headless, with what forecastctl prints for
# the reviewed golden outputs in Tests/Fixtures/reports/golden; checks that polybar draws every icon of the emoji
# set in colour with the fonts its snippet names; then starts the built daemon under the bars and switches its
# language, kills it (SIGKILL), starts it again and stops it (its lifecycle, below).
#
#   config/bars/check-snippets.sh                       the daemon from .build/debug
#   FORECASTD_BIN=.build-release/release config/bars/check-snippets.sh
#   FORECASTD_BARS_REQUIRED=1 config/bars/check-snippets.sh   a bar that is not installed fails (CI)
#
# scripts/deps --bars installs every bar. tmux is required; i3blocks, i3status and conky are run when installed,
# and so are polybar (drawn under Xvfb, its pixels checked; needs xvfb and x11-apps) and Waybar (in a headless
# sway, its pixels checked; needs sway and grim). How each is read: tmux through a capture of an outer tmux
# showing the inner one's status line; i3blocks and i3status through the i3bar protocol they print; conky through
# its console output; polybar and Waybar through screenshots (colours), and the lines `forecastctl watch` prints
# to them (text). i3bar itself is not run (its input is what i3blocks and i3status print). i3status-rust is not
# packaged for Debian 12, so its snippet is not run. It takes about 100 s on a 2-core machine shared with builds
# (it prints its time at the end).
# Exit status: 0 when every check that ran passed, 1 otherwise.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
golden="$root/Tests/Fixtures/reports/golden"
bin_dir=${FORECASTD_BIN:-$root/.build/debug}
started=$SECONDS
# shellcheck source=headless-polybar.sh
. "$here/headless-polybar.sh"
work=$(mktemp -d)
tmux_inner="forecastd-check-inner-$$"
tmux_outer="forecastd-check-outer-$$"

pids=()
# As root, the Wayland session, its bar and the daemon run as "nobody", who must pass through the folders
# above the build (a clone made by mktemp -d is 0700, as CI's is): those folders are opened for passing
# (o+x) while the script runs and given back their exact modes at the end.
opened=()
if [[ $(id -u) -eq 0 ]]; then
    dir=$root
    while [[ $dir != / ]]; do
        if [[ -n $(find "$dir" -maxdepth 0 ! -perm -o=x) ]]; then
            opened+=("$(stat -c '%a' "$dir") $dir")
            chmod o+x "$dir"
        fi
        dir=$(dirname "$dir")
    done
fi
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    tmux -L "$tmux_inner" kill-server 2>/dev/null || true
    tmux -L "$tmux_outer" kill-server 2>/dev/null || true
    rm -rf "$work"
    local entry
    for entry in "${opened[@]}"; do chmod "${entry%% *}" "${entry#* }"; done
}
trap cleanup EXIT

# The snippets read $XDG_RUNTIME_DIR/forecastd/…: point it at a scratch directory.
export XDG_RUNTIME_DIR="$work/run"
status_dir="$XDG_RUNTIME_DIR/forecastd"
mkdir -p "$status_dir"

failures=0
pass() { printf 'ok    %s\n' "$1"; }
fail() { printf 'FAIL  %s\n' "$1"; failures=$((failures + 1)); }
skip() {
    if [[ -n ${FORECASTD_BARS_REQUIRED:-} ]]; then fail "$1"; else printf 'skip  %s\n' "$1"; fi
}

# Writes a golden output as the daemon writes a status file: the text and a newline.
publish() { # golden-file status-file
    { cat "$golden/$1"; echo; } > "$status_dir/$2.tmp" && mv "$status_dir/$2.tmp" "$status_dir/$2"
}

# The snippets of the bars that run a command run `forecastctl status --format …`: for the checks of the snippets
# alone, a stand-in forecastctl on their PATH prints what the real one prints for a golden report (`says`).
mkdir -p "$work/standin"
printf '#!/bin/sh\ncat "%s"\n' "$work/standin/says" > "$work/standin/forecastctl"
chmod +x "$work/standin/forecastctl"
says() { # golden-file: what the stand-in prints from now on
    { cat "$golden/$1"; echo; } > "$work/standin/says"
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
    # The inner server runs the snippet (its command finds the stand-in first); its client is attached inside a
    # pane of the outer server, whose capture is the status line exactly as a terminal would show it.
    says day.tmux.txt
    tmux -L "$tmux_inner" -f /dev/null new-session -d -s inner -x 80 -y 5
    tmux -L "$tmux_inner" set-environment -g PATH "$work/standin:$PATH"
    tmux -L "$tmux_inner" source-file "$here/tmux.conf"
    tmux -L "$tmux_inner" set -g status-interval 1
    tmux -L "$tmux_outer" -f /dev/null new-session -d -s outer -x 80 -y 6 \
        "env XDG_RUNTIME_DIR='$XDG_RUNTIME_DIR' TERM=screen tmux -L '$tmux_inner' attach -t inner"
    capture="tmux -L '$tmux_outer' capture-pane -p -t outer | tail -n 1"

    expected=$(cat "$golden/day.tmux.txt")
    line=$(wait_for "$capture" 10 "$expected")
    if [[ "$line" == *"$expected "* ]]; then
        pass "tmux status-right shows what forecastctl prints: '${line##*  }'"
    else
        fail "tmux status-right: expected '$expected', the status line is '$line'"
    fi

    says stale.tmux.txt
    expected=$(cat "$golden/stale.tmux.txt")
    line=$(wait_for "$capture" 10 "$expected")
    [[ "$line" == *"$expected "* ]] && pass "tmux shows the next line within its interval (stale: '$expected')" \
        || fail "tmux after a change: expected '$expected', got '$line'"

    # forecastd doubles "#" in the tmux format: tmux must show one.
    printf '%s\n' "💭 12##C" > "$work/standin/says"
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
    tmux -L "$tmux_outer" kill-server 2>/dev/null || true
    tmux -L "$tmux_inner" kill-server 2>/dev/null || true
else
    fail "tmux is not installed (apt-get install tmux)"
fi

# --- i3blocks ---------------------------------------------------------------------------------------
if command -v i3blocks >/dev/null; then
    # i3blocks prints the i3bar protocol; the last line is the bar with every block.
    for case in "stale:Samara ☁️ 19°C (stale 3 h):☁️ 19°C*:#888888" \
        "day:Bromsgrove ☁️ 12°C:☁️ 12°C:" "no_location:📍? no location:📍? no location:#FF5555"; do
        IFS=: read -r report full short color <<<"$case"
        says "$report.i3blocks.txt"
        bar=$(PATH="$work/standin:$PATH" timeout 2 i3blocks -c "$here/i3blocks.conf" 2>/dev/null | tail -n 1 || true)
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

# --- i3status read_file and run_watch ---------------------------------------------------------------
# i3status_blocks CONFIG: its read_file and run_watch blocks in the i3bar protocol, as "TEXT|COLOUR", one a line.
i3status_blocks() {
    local line
    line=$(timeout 3 i3status -c "$1" 2>/dev/null | sed -n 3p || true)
    python3 - "$line" <<'EOF'
import json, sys
try:
    blocks = json.loads(sys.argv[1].lstrip(","))
except ValueError:
    blocks = []
for name in ("read_file", "run_watch"):
    block = next((b for b in blocks if b.get("name") == name), {})
    print("%s|%s" % (block.get("full_text", "?"), block.get("color", "")))
EOF
}
if command -v i3status >/dev/null; then
    { printf 'general {\n    output_format = "i3bar"\n    colors = true\n    interval = 1\n}\n'
      sed "s#/run/user/1000#$XDG_RUNTIME_DIR#" "$here/i3status.conf"; } > "$work/i3status.conf"
    # Before the daemon has ever run: no file, no pid file. Neutral grey, as every other bar's "no data".
    rm -f "$status_dir/forecast.txt" "$status_dir/forecastd.pid"
    blocks=$(i3status_blocks "$work/i3status.conf")
    [[ "$blocks" == $'forecast: no data|#888888\nforecastd is not running|#888888' ]] \
        && pass "i3status before the first report: 'forecast: no data' in grey, never red" \
        || fail "i3status before the first report: got '${blocks//$'\n'/ / }'"
    # Running: the file's line in the bar's text colour (never green: stale data looks alike), nothing from
    # run_watch while the pid in forecastd.pid runs.
    publish stale.text.txt forecast.txt
    sleep 300 &
    alive=$!
    pids+=($alive)
    echo "$alive" > "$status_dir/forecastd.pid"
    blocks=$(i3status_blocks "$work/i3status.conf")
    [[ "$blocks" == "$(cat "$golden/stale.text.txt")|#FFFFFF"$'\n|'* ]] \
        && pass "i3status shows the file in the bar's text colour, and nothing from run_watch while the pid runs" \
        || fail "i3status while the daemon runs: got '${blocks//$'\n'/ / }'"
    # Killed: nothing rewrites the file, but the pid in forecastd.pid is gone: run_watch says so, in grey.
    kill "$alive" 2>/dev/null || true
    wait "$alive" 2>/dev/null || true
    blocks=$(i3status_blocks "$work/i3status.conf")
    [[ "$blocks" == *$'\nforecastd is not running|#888888' ]] \
        && pass "i3status says 'forecastd is not running' once the pid in forecastd.pid is gone" \
        || fail "i3status after the daemon's death: got '${blocks//$'\n'/ / }'"
    rm -f "$status_dir/forecast.txt" "$status_dir/forecastd.pid"
else
    skip "i3status is not installed (apt-get install i3status)"
fi

# --- conky ------------------------------------------------------------------------------------------
if command -v conky >/dev/null; then
    says night.text.txt
    line=$(PATH="$work/standin:$PATH" timeout 5 conky -c "$here/conky.conf" -i 1 2>/dev/null | head -n 1 || true)
    expected=$(cat "$golden/night.text.txt")
    [[ "$line" == "$expected" ]] && pass "conky shows: $line" || fail "conky: expected '$expected', got '$line'"
else
    skip "conky is not installed (apt-get install conky-cli)"
fi

# --- polybar (under Xvfb) ---------------------------------------------------------------------------
# polybar draws, so the check looks at the pixels, with the fonts the snippet names: the snippet's module runs a
# stand-in forecastctl that prints what `forecastctl watch --format polybar` prints for a recorded report, and a
# screenshot must show the text in the colour of its %{F…} tag (grey for stale data, red for no location) and no
# other. Then every icon of the emoji set, as the real forecastctl prints it, must be drawn in colour.
if command -v polybar >/dev/null && command -v Xvfb >/dev/null && command -v xwd >/dev/null; then
    mkdir -p "$work/bin"
    start_xvfb
    polybar_config "$here/polybar.ini" "$work/polybar.ini"
    for case in "stale:888888:ff5555" "no_location:ff5555:888888"; do
        IFS=: read -r report colour other <<<"$case"
        printf '#!/bin/sh\ncat "%s"; echo; sleep 30\n' "$golden/$report.polybar.txt" > "$work/bin/forecastctl"
        chmod +x "$work/bin/forecastctl"
        PATH="$work/bin:$PATH" DISPLAY="$display" timeout 30 polybar -q -c "$work/polybar.ini" check >/dev/null 2>&1 &
        bar=$!
        # Screenshots until the text is drawn (up to 20 s: polybar starts slowly on a loaded machine); the
        # colours are judged on the first one that shows it.
        hits=0 misses=0
        for _ in $(seq 20); do
            sleep 1
            DISPLAY="$display" xwd -root -silent > "$work/shot.xwd" 2>/dev/null || continue
            counts=$(python3 "$here/count-colours.py" "$work/shot.xwd" "$colour" "$other")
            read -r hits misses <<<"$counts"
            ((hits > 10 || misses > 0)) && break
        done
        kill "$bar" 2>/dev/null || true
        wait "$bar" 2>/dev/null || true
        ((hits > 10 && misses == 0)) && pass "polybar draws the $report line in #$colour ($hits pixels)" \
            || fail "polybar $report: expected text in #$colour and none in #$other, got $hits and $misses pixels"
    done
    kill "$xvfb" 2>/dev/null || true
    wait "$xvfb" 2>/dev/null || true

    # Every icon in colour: the real forecastctl renders the recorded day report with each condition of the
    # emoji set, and polybar draws them side by side; each must show as a patch of colour (a black-and-white
    # glyph of the text font has none: DejaVu Sans's ☀ and ☁ were drawn so before %{T2}).
    if [[ -x "$bin_dir/forecastctl" ]]; then
        icons="$work/icons"
        mkdir -p "$icons/run/forecastd"
        line=""
        count=0
        for condition in clear:clear-day:1 clear:clear-night:0 mainly_clear:mainly-clear-day:1 \
            partly_cloudy:partly-cloudy-day:1 overcast:overcast:1 fog:fog:1 drizzle:drizzle:1 rain:rain:1 \
            snow:snow:1 thunderstorm:thunderstorm:1 squall:squall:1 tornado:tornado:1; do
            IFS=: read -r code icon day <<<"$condition"
            python3 - "$root/Tests/Fixtures/reports/day.json" "$code" "$icon" "$day" \
                > "$icons/run/forecastd/report.json" <<'EOF'
import json, sys
report = json.load(open(sys.argv[1]))
report["current"]["condition"].update(code=sys.argv[2], icon=sys.argv[3])
report["current"]["is_day"] = sys.argv[4] == "1"
print(json.dumps(report))
EOF
            piece=$(env -i PATH=/usr/bin:/bin HOME="$icons" XDG_RUNTIME_DIR="$icons/run" XDG_CONFIG_HOME="$icons/config" \
                "$bin_dir/forecastctl" status --format polybar 2>/dev/null)
            line+="$piece  "
            count=$((count + 1))
        done
        printf '#!/bin/sh\nprintf "%%s\\n" "%s"; sleep 30\n' "${line//\"/\\\"}" > "$work/bin/forecastctl"
        start_xvfb 1200
        polybar_config "$here/polybar.ini" "$work/polybar-icons.ini"
        sed -i 's/^width = 100%/width = 1200/' "$work/polybar-icons.ini"
        PATH="$work/bin:$PATH" DISPLAY="$display" timeout 30 polybar -q -c "$work/polybar-icons.ini" check >/dev/null 2>&1 &
        bar=$!
        patches=0
        for _ in $(seq 20); do
            sleep 1
            DISPLAY="$display" xwd -root -silent > "$work/shot.xwd" 2>/dev/null || continue
            patches=$(python3 "$here/count-colours.py" --colour-patches "$work/shot.xwd")
            ((patches >= count)) && break
        done
        kill "$bar" "$xvfb" 2>/dev/null || true
        wait "$bar" "$xvfb" 2>/dev/null || true
        ((patches >= count)) && pass "polybar draws all $count icons of the emoji set in colour ($patches patches of colour)" \
            || fail "polybar draws $patches of the emoji set's $count icons in colour: '$line'"
    else
        fail "polybar's icons: no built forecastctl in $bin_dir (swift build, or set FORECASTD_BIN)"
    fi
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
      printf '\n* { font-family: "DejaVu Sans"; font-size: 14px; }\nwindow#waybar { background: #000000; color: #ffffff; }\n'; } \
        > "$wayland/style.css"
    chmod 644 "$wayland"/*.conf "$wayland"/*.jsonc "$wayland"/*.css
    session=(env XDG_RUNTIME_DIR="$wayland/run" WLR_BACKENDS=headless WLR_RENDERER=pixman WLR_LIBINPUT_NO_DEVICES=1)
    "${as[@]}" "${session[@]}" sway -c "$wayland/sway.conf" >/dev/null 2>&1 &
    pids+=($!)
    socket=
    for _ in $(seq 40); do
        sleep 0.5
        socket=$(cd "$wayland/run" 2>/dev/null && ls -d wayland-* 2>/dev/null | grep -v lock | head -n 1 || true)
        [[ -n "$socket" ]] && break
    done
    if [[ -z "$socket" ]]; then
        fail "sway did not start headless"
    else
        for case in "stale:888888:ff5555" "no_location:ff5555:888888"; do
            IFS=: read -r report colour other <<<"$case"
            printf '#!/bin/sh\ncat "%s"; echo; sleep 30\n' "$golden/$report.waybar.txt" > "$wayland/bin/forecastctl"
            chmod 755 "$wayland/bin/forecastctl"
            "${as[@]}" "${session[@]}" WAYLAND_DISPLAY="$socket" PATH="$wayland/bin:/usr/bin:/bin" \
                timeout 30 waybar -c "$wayland/waybar.jsonc" -s "$wayland/style.css" >/dev/null 2>&1 &
            bar=$!
            # Screenshots until the text is drawn (up to 20 s on a loaded machine), judged on the first showing it.
            hits=0 misses=0
            for _ in $(seq 20); do
                sleep 1
                "${as[@]}" "${session[@]}" WAYLAND_DISPLAY="$socket" grim -t ppm "$wayland/run/shot.ppm" 2>/dev/null || continue
                counts=$(python3 "$here/count-colours.py" "$wayland/run/shot.ppm" "$colour" "$other")
                read -r hits misses <<<"$counts"
                ((hits > 10 || misses > 0)) && break
            done
            kill "$bar" 2>/dev/null || true
            wait "$bar" 2>/dev/null || true
            ((hits > 10 && misses == 0)) && pass "Waybar draws the $report module in #$colour ($hits pixels)" \
                || fail "Waybar $report: expected text in #$colour and none in #$other, got $hits and $misses pixels"
        done
    fi
    # sway stays up for the lifecycle checks below; cleanup stops it.
else
    skip "Waybar is not installed with sway and grim (apt-get install waybar sway grim)"
fi



# --- The daemon's lifecycle under the bars ------------------------------------------------------------
# The built forecastd and forecastctl (FORECASTD_BIN, default .build/debug), pinned, a forecast from a local
# server replaying a recorded answer, and every bar started before the daemon, each through its snippet: not
# started yet (no status file: the neutral "no data", never "?"), running (the weather), switched to Spanish with
# `forecastctl set display.language es` (every bar that shows words says them in Spanish: Waybar's tooltip, the
# text lines of conky and i3status, i3blocks; polybar's and tmux's lines have no words), killed with SIGKILL (the
# last weather, marked stale within each bar's interval, and said why: "forecastd no está en marcha" in Waybar's
# tooltip, run_watch's "forecastd is not running" beside i3status's file), started again, stopped gracefully
# (the stale weather; the file i3status reads says "since" a time, never an age), started again. Checked: the
# lines `forecastctl watch` prints for Waybar, polybar and i3blocks (one watcher each, started first and kept
# through it all), what the snippets of i3blocks, tmux and conky print (their commands, and conky itself),
# i3status on the text status file and the pid file, and the pixels of Waybar and polybar (grey while stale,
# white while running).
if [[ -x "$bin_dir/forecastd" && -x "$bin_dir/forecastctl" ]]; then
    life="$work/life"
    mkdir -p "$life/bin" "$life/config/forecastd" "$life/state"
    ln -s "$(realpath "$bin_dir/forecastd")" "$life/bin/forecastd"
    ln -s "$(realpath "$bin_dir/forecastctl")" "$life/bin/forecastctl"
    # shellcheck source=../../Benchmarks/lib.sh
    . "$root/Benchmarks/lib.sh"
    scratch=$work
    work=$life
    bench_serve_forecast "$root/Tests/Fixtures/open-meteo/forecast-samara-ru-current-daily-metric-ms-recorded-2026-09-15.json" \
        2026-09-15 4
    work=$scratch
    rm -f "$status_dir"/*
    # The benchmarks' settings (pinned to Samara, the replay server, nothing asked outside the machine), with the
    # text status file i3status reads (forecastd-outputs.toml).
    bench_settings_toml "$status_dir" '[[output.files]]' "path = \"$status_dir/forecast.txt\"" 'format = "text"' \
        >"$life/config/forecastd/forecastd.toml"
    export XDG_CONFIG_HOME="$life/config"
    # As root, the daemon and the Wayland session run as "nobody" (sway refuses root); root reads its files.
    owner=()
    if [[ $(id -u) -eq 0 ]]; then
        owner=(runuser -u nobody --)
        chmod 755 "$work" "$life" "$life/config" "$life/config/forecastd" "$life/bin"
        chmod 644 "$life/config/forecastd/forecastd.toml"
        chown -R nobody "$XDG_RUNTIME_DIR" "$life/state"
    fi
    daemon_env=(env XDG_RUNTIME_DIR="$XDG_RUNTIME_DIR" XDG_CONFIG_HOME="$XDG_CONFIG_HOME" XDG_STATE_HOME="$life/state"
        HOME="$life" PATH="$life/bin:/usr/bin:/bin")
    # While the daemon starts, its watchers print two lines within milliseconds ("no forecast yet", then the
    # weather). polybar up to 3.7.1 shows only the first of two lines that reach its pipe before it reads
    # (polybar issue #3117): forecastctl writes the next line only once the bar has read the one before. polybar
    # is stopped while the daemon starts, so that both lines are ready before it reads, every time (without
    # the stop, CI saw the red "no forecast yet" stay on one run in many).
    start_daemon() {
        [[ -n ${polybar:-} ]] && kill -STOP "$polybar" 2>/dev/null
        rm -f "$status_dir/report.json"
        "${owner[@]}" "${daemon_env[@]}" forecastd --log-level warning 2>>"$life/forecastd.log" &
        daemon=$!
        wait_for "grep -c '\"status\":\"ok\"' '$status_dir/report.json'" 15 1 >/dev/null
        sleep 0.5
        [[ -n ${polybar:-} ]] && kill -CONT "$polybar" 2>/dev/null
        return 0
    }
    # runuser passes the TERM on to the daemon and waits for it.
    stop_daemon() {
        kill -TERM "$daemon" 2>/dev/null || true
        wait "$daemon" 2>/dev/null || true
    }
    # SIGKILL to the daemon itself (runuser's child): its pid file names it. Nothing of it runs afterwards.
    kill_daemon() {
        local pid
        pid=$(cat "$status_dir/forecastd.pid" 2>/dev/null || true)
        if [[ -z $pid ]]; then
            fail "killed: no forecastd.pid beside the status file"
            pid=$(pgrep -P "$daemon" forecastd || echo "$daemon")
        fi
        kill -KILL "$pid" 2>/dev/null || true
        wait "$daemon" 2>/dev/null || true
    }
    # The watchers a bar runs, started before the daemon; each prints one line per change.
    for format in waybar polybar i3blocks; do
        "${owner[@]}" "${daemon_env[@]}" forecastctl watch --format "$format" > "$life/watch.$format" 2>/dev/null &
        pids+=($!)
    done
    # The bars that draw, with the real forecastctl on their PATH.
    drawn=""
    if command -v polybar >/dev/null && command -v Xvfb >/dev/null && command -v xwd >/dev/null; then
        start_xvfb
        pids+=($xvfb)
        polybar_config "$here/polybar.ini" "$life/polybar.ini"
        "${daemon_env[@]}" DISPLAY="$display" polybar -q -c "$life/polybar.ini" check >/dev/null 2>&1 &
        polybar=$!
        pids+=($polybar)
        drawn+=" polybar"
    fi
    if [[ -n "${socket:-}" ]] && command -v waybar >/dev/null; then
        "${as[@]}" "${session[@]}" WAYLAND_DISPLAY="$socket" "${daemon_env[@]}" XDG_RUNTIME_DIR="$wayland/run" \
            waybar -c "$wayland/waybar.jsonc" -s "$wayland/style.css" >/dev/null 2>&1 &
        pids+=($!)
        drawn+=" Waybar"
    fi
    # shot BAR: pixels of the stale grey and of white text in a screenshot of BAR.
    shot() {
        case $1 in
        polybar) DISPLAY="$display" xwd -root -silent > "$life/shot" 2>/dev/null || true ;;
        Waybar) "${as[@]}" "${session[@]}" WAYLAND_DISPLAY="$socket" grim -t ppm "$wayland/run/shot.ppm" 2>/dev/null || true
            cp "$wayland/run/shot.ppm" "$life/shot" 2>/dev/null || true ;;
        esac
        python3 "$here/count-colours.py" "$life/shot" 888888 ffffff
    }
    # file_bars: what the bars that run a command or read a file show now, one "BAR TEXT" line each, each through
    # its snippet as the bar runs it at its next interval.
    file_bars() {
        local output
        output=$(PATH="$life/bin:$PATH" bash -c "$(sed -n 's/^command=//p' "$here/i3blocks.conf")" 2>/dev/null | head -n 1)
        printf 'i3blocks %s\n' "$output"
        output=$(PATH="$life/bin:$PATH" bash -c "$(sed -n "s/^set -g status-right '#(\(.*\)) .*/\1/p" "$here/tmux.conf")" 2>/dev/null)
        printf 'tmux %s\n' "$output"
        if command -v conky >/dev/null; then
            output=$(PATH="$life/bin:$PATH" timeout 5 conky -c "$here/conky.conf" -i 1 2>/dev/null | head -n 1 || true)
            printf 'conky %s\n' "$output"
        fi
        if command -v i3status >/dev/null; then
            # read_file's text, and run_watch's when it says anything (the pid in forecastd.pid is gone).
            output=$(i3status_blocks "$work/i3status.conf" | cut -d'|' -f1 | paste -sd'|')
            printf 'i3status %s\n' "${output%|}"
        fi
    }
    # stale_words: how the longer formats say "stale" in the bars' language now (an age in what is read once, a
    # time in what stays on show), as a bash pattern; a "*" after the temperature says it in the short ones.
    stale_words='\(stale'
    is_stale() { [[ "$1" == *"°C*"* || "$1" =~ $stale_words ]]; }
    check_phase() { # PHASE STALE(yes/no/none) [WORDS: what the bars that show words must say]
        local phase=$1 stale=$2 words=${3:-} format line bar grey white
        sleep 3
        for format in waybar polybar i3blocks; do
            line=$(tail -n 1 "$life/watch.$format")
            if [[ -z "$line" || "$line" == *"?"* && "$line" != *"no data"* ]]; then
                fail "$phase: watch --format $format shows '$line'"
            elif [[ $stale == none ]]; then
                [[ "$line" == *"no data"* ]] && pass "$phase: watch --format $format shows '$line'" \
                    || fail "$phase: watch --format $format: expected 'no data', got '$line'"
            elif [[ "$line" != *"°C"* ]]; then
                fail "$phase: watch --format $format shows no weather: '$line'"
            elif [[ $stale == yes ]] && ! is_stale "$line" || [[ $stale == no ]] && is_stale "$line"; then
                fail "$phase: watch --format $format: stale should be $stale, got '$line'"
            elif [[ $format == waybar && -n $words && "$line" != *"$words"* ]]; then
                fail "$phase: watch --format waybar does not say '$words': '${line:0:300}'"
            elif [[ $format == waybar && -n $words ]]; then
                pass "$phase: watch --format waybar says '$words' in its tooltip"
            else
                pass "$phase: watch --format $format shows '${line:0:60}'"
            fi
        done
        while read -r bar line; do
            if [[ $stale == none ]]; then
                [[ "$line" != *"°C"* && "$line" != *"?"* && "$line" == *"no data"* ]] \
                    && pass "$phase: $bar shows '$line'" || fail "$phase: $bar: expected 'no data', got '$line'"
            elif [[ "$line" != *"°C"* ]]; then
                fail "$phase: $bar: expected the weather, got '$line'"
            elif [[ $stale == yes ]] && ! is_stale "$line" && [[ "$line" != *"forecastd is not running"* ]] \
                || [[ $stale == no ]] && { is_stale "$line" || [[ "$line" == *"not running"* ]]; }; then
                fail "$phase: $bar: stale should be $stale, got '$line'"
            elif [[ -n $words && ( $bar == conky || $bar == i3status ) && "$line" != *"18,5°C"* ]]; then
                fail "$phase: $bar does not speak the new language (18,5°C): '$line'"
            else
                pass "$phase: $bar shows '$line'"
            fi
        done < <(file_bars)
        for bar in $drawn; do
            read -r grey white <<<"$(shot "$bar")"
            # Antialiased text has every shade from the background up to its colour: white text reaches white,
            # grey text never does (an exact #888888 pixel may be one of white text's shades).
            if [[ $stale == no ]]; then
                ((white > 10)) && pass "$phase: $bar draws the weather in white ($white pixels)" \
                    || fail "$phase: $bar: expected white text, got $white white and $grey grey pixels"
            else
                ((grey > 10 && white == 0)) && pass "$phase: $bar draws it grey ($grey pixels), none white" \
                    || fail "$phase: $bar: expected grey text and no white, got $grey grey and $white white pixels"
            fi
        done
    }
    check_phase "not started yet" none
    start_daemon
    check_phase "running" no
    # Every bar that shows words switches to Spanish at once: Waybar's tooltip ("Cubierto", overcast), the
    # decimal comma of the text lines.
    PATH="$life/bin:$PATH" forecastctl set display.language es >/dev/null 2>"$life/set.err" \
        || fail "forecastctl set display.language es: $(cat "$life/set.err")"
    [[ -s "$life/set.err" ]] && fail "forecastctl set printed more than what changed: $(cat "$life/set.err")"
    stale_words='\((desactualizado|de hace)' 
    check_phase "in Spanish" no "Cubierto"
    kill_daemon
    check_phase "killed (SIGKILL)" yes "forecastd no está en marcha"
    start_daemon
    check_phase "started again" no "Cubierto"
    stop_daemon
    check_phase "stopped" yes
    grep -q "(desactualizado desde las " "$status_dir/forecast.txt" \
        && pass "stopped: the text status file says since when, not an age: '$(cat "$status_dir/forecast.txt")'" \
        || fail "stopped: the text status file: '$(cat "$status_dir/forecast.txt")'"
    start_daemon
    check_phase "started again after the stop" no
    stop_daemon
else
    fail "the daemon's lifecycle: no built forecastd and forecastctl in $bin_dir (swift build, or set FORECASTD_BIN)"
fi

printf 'skip  %s\n' "i3status-rust: not packaged for Debian 12"
printf 'info  %s\n' "check-snippets.sh took $((SECONDS - started)) s"

if ((failures > 0)); then
    echo "$failures check(s) failed"
    exit 1
fi
echo "all checks that ran passed"
