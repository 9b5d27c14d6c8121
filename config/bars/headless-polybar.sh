# polybar drawn headless, for check-snippets.sh and polybar-startups.sh (sourced).

# start_xvfb [WIDTH]: an Xvfb screen the size of one bar (400 pixels wide unless told); sets `display` and `xvfb`
# (its pid) and returns once it accepts clients.
start_xvfb() {
    display=":$((90 + RANDOM % 900))"
    Xvfb "$display" -screen 0 "${1:-400}x24x24" >/dev/null 2>&1 &
    xvfb=$!
    # Xvfb is ready when its socket is there (a loaded machine takes longer than a second).
    for _ in $(seq 100); do [[ -S /tmp/.X11-unix/X${display#:} ]] && break; sleep 0.1; done
}

# polybar_config SNIPPET OUT: a bar as wide as that screen, with the fonts the snippet names (text in DejaVu Sans,
# font-1 the colour emoji) and its forecast module.
polybar_config() {
    { printf '[bar/check]\nwidth = 100%%\nheight = 24\nbackground = #000000\nforeground = #ffffff\n'
      sed -n 's/^;   \(font-[0-9] = \)"\(.*\)"$/\1\2/p' "$1"
      printf 'modules-left = forecast\n\n'
      sed -n '/^\[module\/forecast\]/,$p' "$1"; } >"$2"
}
