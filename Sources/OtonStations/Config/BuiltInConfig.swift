/// The configuration oton uses when no plugins.json exists anywhere it looks:
/// Oton FM as the default station and every bundled plugin, with the shipped
/// defaults. It is the single source of the repository's plugins.json (a test
/// checks they are the same bytes) and of `oton config init`. Bare plugin file
/// names are found beside the oton executable.
public enum BuiltInConfig {
    /// Names the built-in configuration in messages, where a file path would be.
    public static let name = "(built-in default)"

    public static let text = #"""
        {
          "default_station": "Oton FM",
          "stations": [
            {
              "name": "Oton FM",
              "url": "https://s4.radio.co/s696f24a77/listen",
              "status_url": "https://public.radio.co/stations/s696f24a77/status"
            }
          ],
          "plugins": [
            {
              "id": "org.oton.sleep-timer",
              "path": "libOtonSleepTimer.so",
              "enabled": true,
              "config": {
                "fade_seconds": 10,
                "action": "stop"
              }
            },
            {
              "id": "org.oton.share",
              "path": "libOtonShare.so",
              "enabled": true,
              "config": {}
            },
            {
              "id": "org.oton.artwork",
              "path": "libOtonArtwork.so",
              "enabled": true,
              "config": {
                "cache_max_mb": 64,
                "timeout_seconds": 10
              }
            },
            {
              "id": "org.oton.now-playing",
              "path": "libOtonNowPlaying.so",
              "enabled": true,
              "config": {
                "notifications": true,
                "notification_timeout_ms": 5000
              }
            },
            {
              "id": "org.oton.tray",
              "path": "libOtonTray.so",
              "enabled": true,
              "config": {
                "keep_playing": false
              }
            },
            {
              "id": "org.oton.history",
              "path": "libOtonHistory.so",
              "enabled": true,
              "config": {
                "min_live_seconds": 30,
                "jingle_patterns": []
              }
            },
            {
              "id": "org.oton.file-sink",
              "path": "libOtonFileSink.so",
              "enabled": false,
              "config": {
                "directory": "~/Music/oton",
                "mode": "on-demand",
                "buffer_mb": 64
              }
            },
            {
              "id": "org.oton.web-remote",
              "path": "libOtonWebRemote.so",
              "enabled": false,
              "config": {
                "listen": "127.0.0.1:8765"
              }
            },
            {
              "id": "org.oton.metrics",
              "path": "libOtonMetrics.so",
              "enabled": false,
              "config": {
                "listen": "127.0.0.1:9464"
              }
            },
            {
              "id": "org.oton.snapcast",
              "path": "libOtonSnapcast.so",
              "enabled": false,
              "config": {
                "host": "127.0.0.1",
                "port": 4953,
                "stream": "Oton",
                "format": "48000:16:2",
                "mute_local": false
              }
            },
            {
              "id": "org.oton.recognition",
              "path": "libOtonRecognition.so",
              "enabled": false,
              "config": {
                "max_mb": 50
              }
            },
            {
              "id": "org.oton.upnp",
              "path": "libOtonUPnP.so",
              "enabled": false,
              "isolation": "process",
              "config": {
                "timeout_seconds": 5
              }
            }
          ]
        }

        """#
}
