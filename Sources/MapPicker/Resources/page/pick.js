// forecastctl pick: the map page. It asks its own server (relative URLs keep the token) for its words,
// the tile server, the starting point, the gazetteer's places, searches and nearest places, and posts the
// choice. Nothing is loaded from anywhere else but the configured tile server (the page's CSP says so).
"use strict";

(function () {
  const $ = (id) => document.getElementById(id);
  let setup = null;
  let texts = {};
  let map = null;
  let marker = null;
  let selection = null; // {latitude, longitude}: what the buttons act on
  let busy = false;
  let finished = false;
  let offline = true; // until a tile arrives, the offline map is shown
  let offlineLayers = null;
  let placesRequest = 0;

  /** `{name}` placeholders of a catalogue text, filled. */
  function fill(text, values) {
    return text.replace(/\{(\w+)\}/g, (whole, name) => (name in values ? values[name] : whole));
  }

  function escapeHTML(text) {
    return String(text).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
  }

  async function getJSON(path) {
    const response = await fetch(path, { credentials: "same-origin", cache: "no-store" });
    if (!response.ok) throw new Error((await response.text()).trim());
    return response.json();
  }

  /** A longitude in -180...180, as the server wants it. */
  function wrapped(longitude) {
    return ((((longitude + 180) % 360) + 360) % 360) - 180;
  }

  /** `longitude` moved by whole turns to the copy of the world nearest the map's centre. */
  function nearView(longitude) {
    const centre = map.getCenter().lng;
    return longitude + 360 * Math.round((centre - longitude) / 360);
  }

  function formatCoordinate(latitude, longitude) {
    return latitude.toFixed(5) + ", " + longitude.toFixed(5);
  }

  // MARK: Start

  async function start() {
    try {
      setup = await getJSON("api/setup");
    } catch (error) {
      $("outcome").textContent = "forecastctl pick: " + error.message;
      return;
    }
    texts = setup.texts;
    document.documentElement.lang = setup.language;
    document.title = texts.title;
    $("search-label").textContent = texts.searchLabel;
    $("search-button").textContent = texts.searchButton;
    $("pin").textContent = texts.pin;
    $("city").textContent = texts.city;
    $("favorite-text").textContent = texts.favorite;
    $("use").textContent = texts.use;
    $("cancel").textContent = texts.cancel;
    $("offline").textContent = texts.offline;
    $("keys").textContent = texts.keys;
    $("selection").textContent = texts.hint;
    $("map").setAttribute("aria-label", texts.map);
    if (setup.purpose === "print") {
      $("use").hidden = false;
      $("use").classList.add("primary");
    } else {
      $("pin").hidden = false;
      $("pin").classList.add("primary");
      $("city").hidden = false;
      $("favorite-label").hidden = false;
    }
    makeMap();
    $("search").addEventListener("submit", (event) => {
      event.preventDefault();
      search();
    });
    $("pin").addEventListener("click", () => act("pin"));
    $("city").addEventListener("click", () => act("city"));
    $("use").addEventListener("click", () => act("use"));
    $("cancel").addEventListener("click", () => act("cancel"));
    document.body.dataset.ready = "true";
  }

  function makeMap() {
    // SVG, not canvas: a few hundred dots draw fast, and each is an element (a test can count them).
    map = L.map("map", { worldCopyJump: true, keyboard: true, zoomSnap: 1 });
    const tiles = setup.tiles;
    const credit = tiles.attributionURL
      ? '<a href="' + escapeHTML(tiles.attributionURL) + '" target="_blank" rel="noopener noreferrer">' + escapeHTML(tiles.attribution) + "</a>"
      : escapeHTML(tiles.attribution);
    const tileLayer = L.tileLayer(tiles.url, { attribution: credit, maxZoom: 19, subdomains: "abc" });
    // A batch of tiles (from "loading" to "load"): the map is online when any tile of it arrived.
    let loaded = 0;
    let failed = 0;
    tileLayer.on("loading", () => { loaded = 0; failed = 0; });
    tileLayer.on("tileload", () => { loaded += 1; if (offline) setOffline(false); });
    tileLayer.on("tileerror", () => { failed += 1; });
    tileLayer.on("load", () => { if (loaded === 0 && failed > 0) setOffline(true); });
    tileLayer.addTo(map);

    offlineLayers = {
      graticule: L.layerGroup([], { attribution: "" }),
      places: L.layerGroup([], { attribution: escapeHTML(setup.placesCredit) }),
    };

    const start = setup.pin || setup.position;
    if (start) {
      map.setView([start.latitude, start.longitude], 10);
    } else {
      map.setView([20, 0], 2);
    }
    showWhereNow();

    map.on("click", (event) => choose(event.latlng.lat, event.latlng.lng));
    map.on("moveend", () => { if (offline) drawOffline(); });
    $("map").addEventListener("keydown", onMapKey);
    setOffline(true);
  }

  /** The pin, the position with its accuracy, and where the forecast is for now. */
  function showWhereNow() {
    const lines = [];
    if (setup.forecastPlace) lines.push(fill(texts.forecastNow, { place: setup.forecastPlace }));
    if (setup.pin) {
      const name = setup.pin.name || formatCoordinate(setup.pin.latitude, setup.pin.longitude);
      lines.push(fill(texts.pinnedNow, { place: name }));
      L.circleMarker([setup.pin.latitude, setup.pin.longitude], { radius: 7, color: "#7a2e9c", weight: 3, fillOpacity: 0.2, interactive: false })
        .bindTooltip(fill(texts.pinnedNow, { place: name }))
        .addTo(map);
    }
    const position = setup.position;
    if (position && !(setup.pin && position.source === "pinned")) {
      const metres = position.accuracyM ? Math.round(position.accuracyM) : null;
      if (metres) {
        L.circle([position.latitude, position.longitude], { radius: metres, color: "#1f7a4d", weight: 1, fillOpacity: 0.1, interactive: false }).addTo(map);
      }
      L.circleMarker([position.latitude, position.longitude], { radius: 5, color: "#1f7a4d", weight: 2, fillOpacity: 0.8, interactive: false })
        .bindTooltip(metres ? fill(texts.position, { metres: String(metres) }) : (setup.forecastPlace || ""))
        .addTo(map);
    }
    $("now").textContent = lines.join(" ");
  }

  // MARK: Offline map

  function setOffline(value) {
    offline = value;
    $("offline").hidden = !value;
    document.body.dataset.tiles = value ? "offline" : "online";
    if (value) {
      offlineLayers.graticule.addTo(map);
      offlineLayers.places.addTo(map);
      drawOffline();
    } else {
      offlineLayers.graticule.remove();
      offlineLayers.places.remove();
    }
  }

  function drawOffline() {
    drawGraticule();
    drawPlaces();
  }

  /** Lines of latitude and longitude, their spacing following the zoom. */
  function drawGraticule() {
    const layer = offlineLayers.graticule;
    layer.clearLayers();
    const zoom = map.getZoom();
    // About 100 to 250 pixels between lines at every zoom.
    const steps = [30, 30, 30, 20, 10, 10, 5, 2, 1, 0.5, 0.2, 0.1, 0.05, 0.02, 0.01, 0.005, 0.002, 0.001, 0.0005, 0.0002];
    const step = steps[Math.min(Math.max(zoom, 0), steps.length - 1)];
    const bounds = map.getBounds();
    const south = Math.max(-85, Math.floor(bounds.getSouth() / step) * step);
    const north = Math.min(85, Math.ceil(bounds.getNorth() / step) * step);
    const west = Math.floor(bounds.getWest() / step) * step;
    const east = Math.ceil(bounds.getEast() / step) * step;
    const style = { color: "#7d8fa0", weight: 1, opacity: 0.6, interactive: false, className: "graticule" };
    for (let latitude = south, n = 0; latitude <= north && n < 100; latitude += step, n++) {
      layer.addLayer(L.polyline([[latitude, west], [latitude, east]], style));
    }
    for (let longitude = west, n = 0; longitude <= east && n < 100; longitude += step, n++) {
      layer.addLayer(L.polyline([[south, longitude], [north, longitude]], style));
    }
  }

  /** The gazetteer's largest places in view, as dots; the largest few named. */
  async function drawPlaces() {
    const bounds = map.getBounds();
    const request = ++placesRequest;
    const query = new URLSearchParams({
      south: Math.max(-90, bounds.getSouth()).toFixed(5), north: Math.min(90, bounds.getNorth()).toFixed(5),
      west: bounds.getWest().toFixed(5), east: bounds.getEast().toFixed(5), limit: "300",
    });
    let answer;
    try {
      answer = await getJSON("api/places?" + query.toString());
    } catch (error) {
      return;
    }
    if (request !== placesRequest || !offline) return;
    const layer = offlineLayers.places;
    layer.clearLayers();
    answer.places.forEach((place, index) => {
      const radius = place.population >= 1000000 ? 6 : place.population >= 100000 ? 4.5 : 3;
      const dot = L.circleMarker([place.latitude, nearView(place.longitude)], {
        radius: radius, color: "#20394f", weight: 1, fillColor: "#2f6fa8", fillOpacity: 0.9, className: "place-dot",
      });
      dot.bindTooltip(escapeHTML(place.label), index < 15 ? { permanent: true, direction: "right", className: "place-label" } : {});
      dot.on("click", (event) => {
        L.DomEvent.stopPropagation(event);
        choose(place.latitude, nearView(place.longitude), place.label);
      });
      layer.addLayer(dot);
    });
    document.body.dataset.places = String(answer.places.length);
  }

  // MARK: Choosing

  /** Marks a position: the marker, its coordinate, and the nearest place's name. */
  async function choose(latitude, longitude, knownLabel) {
    if (finished) return;
    latitude = Math.max(-90, Math.min(90, latitude));
    selection = { latitude: latitude, longitude: wrapped(longitude) };
    if (marker) {
      marker.setLatLng([latitude, longitude]);
    } else {
      marker = L.marker([latitude, longitude], { keyboard: false }).addTo(map);
    }
    const coordinate = formatCoordinate(selection.latitude, selection.longitude);
    showSelection(knownLabel ? fill(texts.nearest, { place: knownLabel }) : "…", coordinate);
    for (const id of ["pin", "city", "use"]) $(id).disabled = busy;
    if (knownLabel) return;
    const asked = selection;
    try {
      const answer = await getJSON("api/nearest?lat=" + asked.latitude.toFixed(6) + "&lon=" + asked.longitude.toFixed(6));
      if (asked !== selection) return;
      showSelection(fill(texts.nearest, { place: answer.place.label }), coordinate);
    } catch (error) {
      if (asked === selection) showSelection("", coordinate);
    }
  }

  function showSelection(text, coordinate) {
    const element = $("selection");
    element.textContent = text;
    const line = document.createElement("span");
    line.className = "coordinate";
    line.textContent = coordinate;
    element.appendChild(line);
  }

  /** Enter marks the map's centre, P pins (or uses) the marked place, C adds it to the cities. */
  function onMapKey(event) {
    if (finished || event.altKey || event.ctrlKey || event.metaKey) return;
    const key = event.key.toLowerCase();
    if (key === "enter" || key === " ") {
      const centre = map.getCenter();
      choose(centre.lat, centre.lng);
      event.preventDefault();
    } else if (key === "p") {
      if (!selection) {
        const centre = map.getCenter();
        choose(centre.lat, centre.lng);
      }
      act(setup.purpose === "print" ? "use" : "pin");
      event.preventDefault();
    } else if (key === "c" && setup.purpose !== "print") {
      if (!selection) {
        const centre = map.getCenter();
        choose(centre.lat, centre.lng);
      }
      act("city");
      event.preventDefault();
    }
  }

  // MARK: Search

  async function search() {
    if (finished) return;
    const text = $("query").value.trim();
    const message = $("search-message");
    const results = $("results");
    results.hidden = true;
    results.replaceChildren();
    message.textContent = "";
    if (!text) return;
    let answer;
    try {
      answer = await getJSON("api/search?q=" + encodeURIComponent(text));
    } catch (error) {
      message.textContent = fill(texts.failed, { reason: error.message });
      return;
    }
    if (answer.result === "unique") {
      goTo(answer.places[0]);
    } else if (answer.result === "ambiguous") {
      message.textContent = texts.searchSeveral;
      for (const place of answer.places) {
        const item = document.createElement("li");
        const button = document.createElement("button");
        button.type = "button";
        button.textContent = place.label;
        button.addEventListener("click", () => {
          results.hidden = true;
          message.textContent = "";
          goTo(place);
        });
        item.appendChild(button);
        results.appendChild(item);
      }
      results.hidden = false;
      results.querySelector("button").focus();
    } else {
      message.textContent = texts.searchNone;
    }
  }

  /** Moves the map to a place found by name, marks it, and gives the map the keyboard. */
  function goTo(place) {
    map.setView([place.latitude, place.longitude], Math.max(map.getZoom(), 11));
    choose(place.latitude, place.longitude, place.label);
    $("map").focus();
  }

  // MARK: Doing

  async function act(action) {
    if (busy || finished) return;
    if (action !== "cancel" && !selection) return;
    busy = true;
    const buttons = ["pin", "city", "use", "cancel"].map($);
    buttons.forEach((button) => { button.disabled = true; });
    const outcome = $("outcome");
    outcome.className = "";
    outcome.textContent = texts.saving;
    const body = { action: action, favorite: $("favorite").checked };
    if (selection) {
      body.latitude = selection.latitude;
      body.longitude = selection.longitude;
    }
    let answer = null;
    try {
      const response = await fetch("api/choose", {
        method: "POST", credentials: "same-origin", cache: "no-store",
        headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
      });
      const type = response.headers.get("Content-Type") || "";
      answer = type.startsWith("application/json") ? await response.json() : { ok: false, message: (await response.text()).trim() };
    } catch (error) {
      answer = null;
    }
    busy = false;
    if (answer && answer.ok) {
      finished = true;
      outcome.className = "done";
      outcome.textContent = answer.message;
      document.body.classList.add("finished");
      document.body.dataset.outcome = action;
      $("query").disabled = true;
      $("search-button").disabled = true;
      $("favorite").disabled = true;
      map.off("click");
      return;
    }
    outcome.className = "failed";
    outcome.textContent = answer ? fill(texts.failed, { reason: answer.message }) : texts.lost;
    buttons.forEach((button) => { button.disabled = button.id !== "cancel" && !selection; });
  }

  document.addEventListener("DOMContentLoaded", start);
})();
