# polybar drawn headless, for check-snippets.sh and polybar-startups.sh (sourced).

# start_xvfb: an Xvfb screen the size of one bar; sets `display` and `xvfb` (its pid) and returns once it
# accepts clients.
start_xvfb() {
    display=":$((90 + RANDOM % 900))"
    Xvfb "$display" -screen 0 400x24x24 >/dev/null 2>&1 &
    xvfb=$!
    # Xvfb is ready when its socket is there (a loaded machine takes longer than a second).
    for _ in $(seq 100); do [[ -S /tmp/.X11-unix/X${display#:} ]] && break; sleep 0.1; done
}

# polybar_config SNIPPET OUT: a bar as wide as that screen, text in DejaVu Sans, with the snippet's forecast module.
polybar_config() {
    { printf '[bar/check]\nwidth = 100%%\nheight = 24\nfont-0 = DejaVu Sans:pixelsize=12\nmodules-left = forecast\n\n'
      sed -n '/^\[module\/forecast\]/,$p' "$1"; } >"$2"
}
