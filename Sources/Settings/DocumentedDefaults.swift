/// The text of `config/forecastd.toml`: every key at its default, documented.
///
/// `forecastctl` writes it when it creates a settings file, so a new file explains itself. A test
/// compares it with `config/forecastd.toml` byte for byte, so the two cannot drift apart.
extension Settings {
    public static let documentedFileText = #"""
# forecastd settings.
#
# Every key is shown at its default, so this file as shipped changes nothing; delete what you do
# not change, or keep it as a reference. Keys that are not listed here are rejected, and every
# problem is reported with its line and column, so a typo is never silently ignored.
#
# forecastd reads the first of these that exists:
#   1. the file named by `--config PATH`
#   2. the file named by $FORECASTD_CONFIG
#   3. $XDG_CONFIG_HOME/forecastd/forecastd.toml (~/.config/forecastd/forecastd.toml when unset)
#   4. /etc/forecastd/forecastd.toml
# A path given by flag or variable must exist; with none of them, the defaults below apply.
#
# The daemon follows this file: a saved change applies at once, and so do SIGHUP and
# `forecastctl reload`. A change with a mistake is not applied; the last good settings keep running
# and the report says what to fix. `forecastctl set KEY VALUE` (and `units`, `pin`, `unpin`, `mode`)
# edit this file for you, leaving comments and layout as they are.

# Units for temperatures, wind, precipitation and distances: "metric" or "imperial".
units = "metric"

# How often to fetch the forecast again, in minutes (1 to 1440).
refresh_minutes = 15

[location]
# How forecastd decides where it is:
#   "auto"    a fresh gpsd fix first; without one, the last gpsd fix while it is recent, then the
#             static file, then IP geolocation, then the pin below;
#   "pinned"  the pin only (then the [location.pin] table is required).
mode = "auto"

# Moving farther than this, in kilometres, fetches a new forecast before refresh_minutes is up
# (0.1 to 1000).
refresh_distance_km = 5.0

# The name a position gets:
#   "city"     the city whose area plausibly covers the point, weighing population against
#              distance: Paris rather than Saint-Ouen, Lisbon rather than Areeiro;
#   "nearest"  the nearest locality, however small (Saint-Ouen).
# Far from any place the report says "near X" with the distance, whichever rule is chosen.
naming = "city"

# GeoClue's static-source file (latitude, longitude, altitude and accuracy, one per line, with
# # comments), used in "auto" mode when it exists. "" disables it.
static_file = "/etc/geolocation"

# A new position implying a faster move than this, in km/h, is ignored unless the following
# fixes confirm it (1 to 100000).
max_speed_kmh = 1200.0

# A fixed place, used when mode is "pinned" and as the last fallback in "auto". There is no pin
# by default. Latitude (-90 to 90) and longitude (-180 to 180) are decimal degrees and both are
# required; (0, 0) is rejected because it is where broken receivers claim to be. The name is
# optional and replaces the place name forecastd would look up. `forecastctl pin` writes this
# table from coordinates, a geo: URI or an OpenStreetMap or Google Maps link.
# [location.pin]
# latitude = -34.9011
# longitude = -56.1645
# name = "Montevideo"

[location.gpsd]
# Whether to ask gpsd for the position at all.
enabled = true

# The host gpsd listens on: a host name or IP address.
host = "127.0.0.1"

# The TCP port gpsd listens on (1 to 65535).
port = 2947

# A fix older than this many seconds no longer counts as the current position (1 to 86400).
max_fix_age_seconds = 120

# After that, the last gpsd fix is still preferred over the static file, IP geolocation and the
# pin for this many minutes (0 to 1440; 0 turns this off).
recent_fix_minutes = 30

[location.ip]
# Whether to ask IP geolocation services where the network's public address is (city-level at
# best, and wrong behind a VPN). Asked only when gpsd and the static file know nothing, and at
# most once an hour. false keeps your address private (so does FORECASTD_IP_GEOLOCATION=off in
# the daemon's environment, when there is no settings file).
enabled = true

# The services asked, in order, until one answers. Known: "ipinfo", "ipapi", "ifconfig", "ip-api".
services = ["ipinfo", "ipapi"]

# Each service's endpoint, an http or https URL; change them only for a mirror or a test server.
# ipinfo.io:
ipinfo_url = "https://ipinfo.io/json"
# ipapi.co:
ipapi_url = "https://ipapi.co/json/"
# ifconfig.co:
ifconfig_url = "https://ifconfig.co/json"
# ip-api.com (HTTP only on its free tier):
ip_api_url = "http://ip-api.com/json/"

[providers]
# The weather services tried, in order: when the first fails, the next serves. Known:
# "open-meteo", "met-norway" and "openweathermap" (which needs an API key below, and joins at the
# end of the list by itself when it has one).
order = ["open-meteo", "met-norway"]

# Decimals of latitude and longitude sent to the services (0 to 4): 2 is about a kilometre, all a
# forecast needs, and it tells them less about where you are.
coordinate_precision = 2

[providers.open_meteo]
# The Open-Meteo forecast endpoint: an http or https URL. Change it only for a self-hosted mirror.
url = "https://api.open-meteo.com/v1/forecast"

# How long one request may take, in seconds (1 to 120).
timeout_seconds = 15

# Open-Meteo's place search, asked by `forecastctl cities add` for places the offline gazetteer
# does not know (fewer than 1000 inhabitants). "" (the default) keeps name searches offline; set
# "https://geocoding-api.open-meteo.com/v1/search" to allow it. The daemon never uses it.
geocoding_url = ""

[providers.met_norway]
# MET Norway's Locationforecast 2.0 endpoint: an http or https URL.
url = "https://api.met.no/weatherapi/locationforecast/2.0/compact"

# Your e-mail address or a URL, sent in the User-Agent as MET Norway's terms of service ask.
contact = ""

# How long one request may take, in seconds (1 to 120).
timeout_seconds = 15

[providers.openweathermap]
# The OpenWeatherMap API: an http or https URL.
url = "https://api.openweathermap.org"

# Your API key. Rather than writing it here, name a file whose first line is the key in
# api_key_file, or set $FORECASTD_OPENWEATHERMAP_API_KEY; the first of the three that is set wins.
# A settings file holding a key should be readable by you only (chmod 600): forecastd warns
# otherwise. forecastd never logs or shows the key.
api_key = ""

# An absolute path to a file whose first line is the API key, or "" for none.
api_key_file = ""

# true uses One Call 3.0 (hourly and 8 days; a subscription of its own) instead of current
# weather and the free 5-day forecast.
one_call = false

# How long one request may take, in seconds (1 to 120).
timeout_seconds = 15

[output]
# Where the daemon publishes. Both must be absolute paths; the defaults depend on how it runs:
#   as a user:            $XDG_RUNTIME_DIR/forecastd/ (/tmp/forecastd-UID/ when XDG_RUNTIME_DIR is unset)
#   as a system service:  /run/forecastd/
#
# The latest report as JSON, replaced whole after every change.
# status_file = "/run/user/1000/forecastd/report.json"
#
# The Unix socket forecastctl talks to (at most 107 bytes long).
# socket = "/run/user/1000/forecastd/forecastd.sock"

# For a system service: the group allowed to read the socket, which then gets mode 0660.
# "" keeps it to the owner (mode 0600).
socket_group = ""

# How many socket clients are served at once (1 to 10000); more are refused with a message.
max_clients = 64

# Extra status files, each in a bar's format, replaced whole after every change: add one
# [[output.files]] table per file. The format is "json", "waybar", "i3blocks", "polybar",
# "i3status-rust", "tmux", "text" or "template"; a template uses wttr.in's codes or named
# placeholders, e.g. "%c %t" or "{icon} {temp}". Icons are "emoji", "emoji-safe" (for tmux),
# "nerd" or "text". None by default; for example:
# [[output.files]]
# path = "/run/user/1000/forecastd/waybar.json"
# format = "waybar"
# template = ""
# icons = "emoji"

[display]
# The icons of the socket's formats and of forecastctl: "emoji", "emoji-safe", "nerd" or "text".
icons = "emoji"

# Bars get the class "hot" at or above this temperature, in °C (-100 to 100).
hot_celsius = 30.0

# And the class "cold" at or below this one, in °C; it must be below hot_celsius.
cold_celsius = 0.0

[history]
# How many days forecastd keeps the readings and forecasts of favourite cities (1 to 36500);
# older ones are deleted. They are kept in history.sqlite in the state directory:
# $XDG_STATE_HOME/forecastd (~/.local/state/forecastd when unset), or /var/lib/forecastd for a
# system service. `forecastctl history NAME` shows them.
retention_days = 365

# Cities to follow besides where you are: one [[cities]] table per city. `forecastctl cities add
# NAME` looks a name up offline and writes the table for you. The name to show, the latitude
# (-90 to 90) and the longitude (-180 to 180) are required; admin1 (the region) and country (an
# ISO 3166-1 alpha-2 code such as "FR") are optional. A favourite (favorite set to true) has its
# weather recorded in the history database. The date a city was added is written without quotes.
# Commands know each city by an id: its name in lower-case letters and digits joined by "-", then
# "-" and the country code in lower case (São Paulo in BR is sao-paulo-br). Two places with the
# same name and country need an id of their own, e.g. "springfield-il-us". None by default; for
# example:
# [[cities]]
# name = "São Paulo"
# admin1 = "São Paulo"
# country = "BR"
# latitude = -23.5475
# longitude = -46.63611
# favorite = true
# added = 2026-11-22
# id = "sao-paulo-br"

"""#
}
