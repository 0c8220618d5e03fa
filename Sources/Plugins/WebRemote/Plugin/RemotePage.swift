/// The page: one HTML file with its CSS and script inline, no build step and nothing fetched from
/// elsewhere (it works without internet). It reads the token from its own URL, listens to
/// /events (Server-Sent Events) and POSTs actions with the token in the X-Oton-Token header.
/// Everything from the bus is put into the page as text (textContent), never as HTML.
/// It speaks the browser's language where ``RemotePageStrings`` has it, and shows times in the
/// browser's locale.
enum RemotePage {
    static let html = template.replacing("/*CATALOGUES*/", with: RemotePageStrings.catalogues)

    private static let template = #"""
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="color-scheme" content="dark">
        <title>Oton</title>
        <style>
        :root { --accent: #3a4a6b; }
        * { box-sizing: border-box; }
        body { margin: 0; min-height: 100vh; font: 16px/1.4 system-ui, sans-serif; color: #f5f5f5;
          background: linear-gradient(160deg, var(--accent) 0%, #101014 75%); transition: background .6s; }
        main { max-width: 960px; margin: 0 auto; padding: 16px; display: grid; gap: 16px; grid-template-columns: 1fr; }
        @media (min-width: 800px) { main { grid-template-columns: 360px 1fr; align-items: start; } #side { grid-column: 2; grid-row: 1 / span 3; } }
        #cover { width: 100%; max-width: 360px; aspect-ratio: 1; margin: 0 auto; border-radius: 12px; background: rgba(0,0,0,.35);
          display: grid; place-items: center; overflow: hidden; box-shadow: 0 8px 32px rgba(0,0,0,.5); }
        #cover img { width: 100%; height: 100%; object-fit: cover; }
        #cover span { font-size: 96px; font-weight: 700; color: rgba(255,255,255,.6); }
        h1 { font-size: 1.5rem; margin: 0; overflow-wrap: anywhere; }
        .artist { font-size: 1.15rem; margin: 4px 0 0; color: #e6e6e6; overflow-wrap: anywhere; }
        .station { margin: 4px 0 0; color: #d0d0d0; }
        #status { margin: 8px 0 0; padding: 6px 10px; border-radius: 6px; background: rgba(0,0,0,.45); }
        #status.error { background: #7a1010; }
        .controls { display: flex; gap: 8px; flex-wrap: wrap; align-items: center; }
        button, input[type=text] { font: inherit; color: #fff; background: rgba(0,0,0,.55); border: 1px solid #bbb; border-radius: 8px; padding: 10px 14px; min-height: 44px; }
        button:disabled { opacity: .55; }
        button:focus-visible, input:focus-visible { outline: 3px solid #ffd54a; outline-offset: 2px; }
        #playpause { font-size: 1.2rem; min-width: 120px; }
        label { display: block; margin: 0 0 4px; }
        input[type=range] { width: 100%; min-height: 44px; accent-color: #ffd54a; }
        section { background: rgba(0,0,0,.4); border-radius: 12px; padding: 12px 14px; }
        h2 { font-size: 1.05rem; margin: 0 0 8px; }
        ol { margin: 0; padding-left: 1.4em; } li { margin: 2px 0; overflow-wrap: anywhere; }
        .note { color: #d0d0d0; font-size: .9rem; margin: 6px 0 0; }
        #links a { color: #ffd54a; overflow-wrap: anywhere; }
        #notice { margin: 8px 0 0; padding: 6px 10px; border-radius: 6px; background: #7a1010; }
        .station-list { list-style: none; padding: 0; margin: 8px 0 0; display: flex; flex-wrap: wrap; gap: 8px; }
        .station-list button[aria-current="true"], #level[aria-pressed="true"] { border-color: #ffd54a; border-width: 2px; }
        .visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
        </style>
        </head>
        <body>
        <main>
          <div id="cover" role="img" aria-label="No artwork"><span id="initial" aria-hidden="true">♪</span></div>
          <div id="now">
            <h1 id="title">Connecting…</h1>
            <p class="artist" id="artist"></p>
            <p class="station" id="station"></p>
            <p class="station" id="cast" role="status" hidden></p>
            <p id="status" role="status" aria-live="polite">Connecting to oton…</p>
            <p id="notice" role="alert" hidden></p>
            <div class="controls" style="margin-top:12px">
              <button id="playpause" type="button">Play</button>
              <button id="stop" type="button">Stop</button>
              <button id="share" type="button">Share</button>
            </div>
            <div style="margin-top:12px">
              <label for="volume"><span>Volume</span> <span id="volume-value">100%</span></label>
              <input id="volume" type="range" min="0" max="100" step="1" value="100">
            </div>
            <div class="controls" id="timeshift-box" style="margin-top:12px" hidden>
              <button id="back30" type="button">Back 30 s</button>
              <span id="behind" class="note" aria-live="polite"></span>
              <button id="live" type="button" hidden>Back to live</button>
            </div>
            <div class="controls" id="level-box" style="margin-top:12px" hidden>
              <button id="level" type="button" aria-pressed="false">Loudness levelling: off</button>
              <span id="level-gain" class="note" aria-live="polite"></span>
            </div>
          </div>
          <div id="side">
            <section aria-labelledby="stations-heading">
              <h2 id="stations-heading">Station</h2>
              <div class="controls">
                <button id="prev" type="button" aria-label="Previous station">◀ Prev</button>
                <button id="next" type="button" aria-label="Next station">Next ▶</button>
              </div>
              <ol id="stations" class="station-list" aria-label="Stations"></ol>
              <form id="switch" class="controls" style="margin-top:8px">
                <label for="station-input" class="visually-hidden">Station name, number or URL</label>
                <input id="station-input" type="text" placeholder="Station name, number or URL" autocomplete="off">
                <button type="submit">Switch</button>
              </form>
            </section>
            <section aria-labelledby="sleep-heading" style="margin-top:16px">
              <h2 id="sleep-heading">Sleep timer</h2>
              <p id="sleep" aria-live="polite">No sleep timer set.</p>
              <div class="controls" id="sleep-presets">
                <button type="button" data-sleep="15m" aria-label="Sleep in 15 minutes">15 min</button>
                <button type="button" data-sleep="30m" aria-label="Sleep in 30 minutes">30 min</button>
                <button type="button" data-sleep="60m" aria-label="Sleep in 60 minutes">60 min</button>
                <button type="button" data-sleep="after-track" aria-label="Sleep after this track">After track</button>
                <button type="button" data-sleep="cancel" id="sleep-cancel" aria-label="Cancel the sleep timer">Cancel</button>
              </div>
            </section>
            <section aria-labelledby="share-heading" style="margin-top:16px">
              <h2 id="share-heading">Share</h2>
              <p id="share-text" class="note">Press Share to share what is playing.</p>
              <ul id="links"></ul>
            </section>
            <section aria-labelledby="history-heading" style="margin-top:16px">
              <h2 id="history-heading">Recently played</h2>
              <ol id="history"></ol>
            </section>
          </div>
        </main>
        <script>
        "use strict";
        const token = new URLSearchParams(location.search).get("token") || "";
        const $ = (id) => document.getElementById(id);

        // The browser's language where the plugin has words for it (RemotePageStrings), else English.
        const catalogues = /*CATALOGUES*/;
        const languages = (navigator.languages && navigator.languages.length ? navigator.languages : [navigator.language || "en"])
          .map((l) => String(l).toLowerCase());
        const language = languages.map((l) => catalogues[l] ? l : l.split("-")[0]).find((l) => catalogues[l]) || "en";
        const words = catalogues[language] || {};
        function t(text, values) {
          let out = words[text] || text;
          for (const key in values || {}) out = out.split("{" + key + "}").join(values[key]);
          return out;
        }
        document.documentElement.lang = language;
        document.querySelectorAll("body *").forEach((e) => {
          if (e.children.length === 0 && e.tagName !== "SCRIPT" && words[e.textContent.trim()]) e.textContent = t(e.textContent.trim());
          for (const name of ["aria-label", "placeholder"]) if (e.hasAttribute(name)) e.setAttribute(name, t(e.getAttribute(name)));
        });
        // Clock times in the browser's own locale (24 h or AM/PM, its digits).
        const clock = new Intl.DateTimeFormat(navigator.languages, { hour: "2-digit", minute: "2-digit" });
        let current = null, sleepEnds = null, artworkVersion = -1;

        function post(body) {
          return fetch("/action", { method: "POST", headers: { "Content-Type": "application/json", "X-Oton-Token": token },
            body: JSON.stringify(body) }).then((r) => { if (!r.ok) r.text().then((t) => showStatus(t, true)); })
            .catch(() => showStatus(t("Cannot reach oton."), true));
        }
        function showStatus(text, isError) { $("status").textContent = text; $("status").className = isError ? "error" : ""; }

        const stateWords = { idle: "Idle", connecting: "Connecting…", buffering: "Buffering", playing: "Playing",
          paused: "Paused", stopped: "Stopped", error: "Error" };
        const artworkLabels = { cover: "Cover of {title}", "station-logo": "Station logo of {title}", default: "Oton's picture for {title}" };

        function render(s) {
          current = s;
          const title = s.break ? t("Break") : (s.title || s.station || t("Nothing playing"));
          $("title").textContent = title;
          $("artist").textContent = s.break ? "" : s.artist;
          $("station").textContent = s.station ? t("on {station}", { station: s.station }) : "";
          $("cast").hidden = !s.cast;
          $("cast").textContent = s.cast ? t("Casting to {renderer}", { renderer: s.cast.renderer }) : "";
          let status = stateWords[s.state] ? t(stateWords[s.state]) : s.state;
          if (s.state === "buffering" && s.buffering_percent >= 0) status += " " + s.buffering_percent + "%";
          if (s.error) status = t("Error: {message}", { message: s.error.message }) + (s.error.suggestion ? " — " + s.error.suggestion : "");
          showStatus(status, !!s.error);
          const playing = s.state === "playing" || s.state === "buffering" || s.state === "connecting";
          $("playpause").textContent = t(playing ? "Pause" : "Play");
          $("playpause").setAttribute("aria-label", t(playing ? "Pause" : "Play"));
          if (document.activeElement !== $("volume")) $("volume").value = Math.round(Math.min(s.volume, 1) * 100);
          $("volume-value").textContent = Math.round(s.volume * 100) + "%";
          $("timeshift-box").hidden = !s.timeshift;
          if (s.timeshift) {
            const behind = Math.floor(s.timeshift.behind_live_ms / 1000);
            $("behind").textContent = behind > 0
              ? t("Behind live") + " −" + Math.floor(behind / 60) + ":" + String(behind % 60).padStart(2, "0") : t("Live");
            $("live").hidden = behind <= 0;
          }
          $("level-box").hidden = !s.level;
          if (s.level) {
            $("level").setAttribute("aria-pressed", s.level.enabled ? "true" : "false");
            $("level").textContent = t(s.level.enabled ? "Loudness levelling: on" : "Loudness levelling: off");
            $("level-gain").textContent = s.level.enabled && typeof s.level.gain_db === "number"
              ? t("gain {gain} dB", { gain: (s.level.gain_db > 0 ? "+" : "") + s.level.gain_db.toFixed(1) }) : "";
          }
          document.body.style.setProperty("--accent", s.color || "#3a4a6b");
          const cover = $("cover");
          if (s.artwork && s.artwork.version !== artworkVersion) {
            artworkVersion = s.artwork.version;
            const img = new Image();
            img.alt = "";
            img.src = "/artwork?token=" + encodeURIComponent(token) + "&v=" + artworkVersion;
            cover.replaceChildren(img);
            cover.setAttribute("aria-label", t(artworkLabels[s.artwork.type] || artworkLabels.cover, { title }));
          } else if (!s.artwork && artworkVersion !== -1) {
            artworkVersion = -1;
            const span = document.createElement("span"); span.textContent = "♪"; span.setAttribute("aria-hidden", "true");
            cover.replaceChildren(span); cover.setAttribute("aria-label", t("No artwork"));
          }
          sleepEnds = s.sleep && s.sleep.remaining_seconds !== undefined ? Date.now() + s.sleep.remaining_seconds * 1000 : null;
          $("sleep").textContent = !s.sleep ? t("No sleep timer set.") :
            (s.sleep.mode === "after-track" ? t("Will " + s.sleep.action + " after this track.") : "");
          tick();
          $("share-text").textContent = s.share.text || shareText();
          $("links").replaceChildren(...s.share.links.map((href) => {
            const li = document.createElement("li"), a = document.createElement("a");
            a.href = href; a.textContent = href; a.rel = "noreferrer noopener"; a.target = "_blank"; li.append(a); return li;
          }));
          $("notice").hidden = !s.notice;
          $("notice").textContent = s.notice || "";
          $("sleep-cancel").disabled = !s.sleep;
          $("stations").replaceChildren(...(s.stations || []).map((st) => {
            const li = document.createElement("li"), b = document.createElement("button");
            b.type = "button"; b.textContent = st.number + ". " + st.name;
            b.setAttribute("aria-current", st.current ? "true" : "false");
            b.addEventListener("click", () => post({ action: "station", station: st.name }));
            li.append(b); return li;
          }));
          $("history").replaceChildren(...s.history.map((h) => {
            const li = document.createElement("li");
            const when = clock.format(new Date(h.time));
            li.textContent = when + "  " + (h.artist ? h.artist + " – " : "") + h.title; return li;
          }));
        }
        function tick() {
          if (sleepEnds === null) return;
          const left = Math.max(0, Math.round((sleepEnds - Date.now()) / 1000));
          $("sleep").textContent = t("Will " + current.sleep.action + " in {time} (at {clock})",
            { time: Math.floor(left / 60) + ":" + String(left % 60).padStart(2, "0"), clock: clock.format(new Date(sleepEnds)) });
        }
        setInterval(tick, 1000);
        function shareText() {
          if (!current || !current.title) return "";
          const song = (current.artist ? current.artist + " – " : "") + current.title;
          return current.station ? t("Listening to {song} on {station}", { song, station: current.station }) : t("Listening to {song}", { song });
        }

        $("playpause").addEventListener("click", () => post({ action: "play-pause" }));
        $("stop").addEventListener("click", () => post({ action: "stop" }));
        document.querySelectorAll("#sleep-presets button").forEach((b) =>
          b.addEventListener("click", () => post({ action: "sleep", value: b.dataset.sleep })));
        $("prev").addEventListener("click", () => post({ action: "prev" }));
        $("next").addEventListener("click", () => post({ action: "next" }));
        $("back30").addEventListener("click", () => post({ action: "seek", seconds: -30 }));
        $("live").addEventListener("click", () => post({ action: "live" }));
        $("level").addEventListener("click", () =>
          post({ action: "level", value: current && current.level && current.level.enabled ? "off" : "on" }));
        $("volume").addEventListener("change", (e) => post({ action: "volume", value: e.target.value / 100 }));
        $("switch").addEventListener("submit", (e) => {
          e.preventDefault(); const v = $("station-input").value.trim(); if (v) post({ action: "station", station: v });
        });
        $("share").addEventListener("click", async () => {
          const text = (current && current.share.text) || shareText();
          const url = current && current.share.links.length ? current.share.links[0] : undefined;
          if (navigator.share) { try { await navigator.share({ text, url }); } catch (e) {} return; }
          try { await navigator.clipboard.writeText(text + (url ? "\n" + url : "")); showStatus(t("Copied to the clipboard."), false); }
          catch (e) { $("share-text").textContent = text; }
        });

        function connect() {
          const events = new EventSource("/events?token=" + encodeURIComponent(token));
          events.onmessage = (e) => { try { render(JSON.parse(e.data)); } catch (err) {} };
          events.onerror = () => { showStatus(t("Connection lost; reconnecting…"), true); };
        }
        connect();
        </script>
        </body>
        </html>
        """#
}
