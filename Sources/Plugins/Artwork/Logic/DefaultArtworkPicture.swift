/// The picture shown when a station has neither cover nor logo: two beamed eighth notes (♫) on a
/// slate-blue diagonal gradient, so that an artwork area is never an empty square. Drawn here
/// (pure, testable) as 8-bit RGB rows; the plugin writes it once as a PNG.
public enum DefaultArtworkPicture {
    public static let size = 256

    /// `size`×`size` pixels, 3 bytes each, rows top to bottom, no padding.
    public static func rgb(size: Int = size) -> [UInt8] {
        var pixels = [UInt8](repeating: 0, count: size * size * 3)
        let samples = 4  // per axis: 16 samples per pixel smooth the edges
        for y in 0..<size {
            for x in 0..<size {
                var covered = 0
                for sy in 0..<samples {
                    for sx in 0..<samples {
                        let u = (Double(x) + (Double(sx) + 0.5) / Double(samples)) / Double(size)
                        let v = (Double(y) + (Double(sy) + 0.5) / Double(samples)) / Double(size)
                        if isNote(u, v) { covered += 1 }
                    }
                }
                let ink = Double(covered) / Double(samples * samples) * 0.88
                let t = (Double(x) + Double(y)) / Double(2 * size)  // 0 top left, 1 bottom right
                let disc =
                    ((Double(x) / Double(size) - 0.5) * (Double(x) / Double(size) - 0.5)
                        + (Double(y) / Double(size) - 0.5) * (Double(y) / Double(size) - 0.5)) < 0.38 * 0.38 ? 0.06 : 0
                let background = [0x5E + (0x2A - 0x5E) * t, 0x6E + (0x2F - 0x6E) * t, 0xA0 + (0x45 - 0xA0) * t]
                let offset = (y * size + x) * 3
                for channel in 0..<3 {
                    let base = background[channel] + (255 - background[channel]) * disc
                    pixels[offset + channel] = UInt8(max(0, min(255, (base + (245 - base) * ink).rounded())))
                }
            }
        }
        return pixels
    }

    /// The picture's average colour as `#RRGGBB` (what a page tints itself with).
    public static func averageColor(of pixels: [UInt8], size: Int = size) -> String {
        pixels.withUnsafeBytes { AverageColor.of(pixels: $0, width: size, height: size, rowStride: size * 3, channels: 3) } ?? "#3A3F4B"
    }

    /// ♫ in the unit square (v grows downwards): two tilted oval heads, their stems, one beam.
    static func isNote(_ u: Double, _ v: Double) -> Bool {
        func head(_ cx: Double, _ cy: Double) -> Bool {
            let (dx, dy) = (u - cx, v - cy)
            let (cosine, sine) = (0.906, -0.423)  // tilted 25° up to the right
            let along = dx * cosine - dy * sine, across = dx * sine + dy * cosine
            return (along / 0.088) * (along / 0.088) + (across / 0.062) * (across / 0.062) <= 1
        }
        func stem(_ left: Double, from top: Double, to bottom: Double) -> Bool {
            u >= left && u <= left + 0.026 && v >= top && v <= bottom
        }
        let (beamLeft, beamRight, beamTopLeft, beamTopRight) = (0.431, 0.738, 0.30, 0.24)
        let beamTop = beamTopLeft + (beamTopRight - beamTopLeft) * (u - beamLeft) / (beamRight - beamLeft)
        let beam = u >= beamLeft && u <= beamRight && v >= beamTop && v <= beamTop + 0.075
        return head(0.365, 0.685) || head(0.64, 0.625) || stem(0.431, from: 0.30, to: 0.68) || stem(0.712, from: 0.24, to: 0.62) || beam
    }
}
