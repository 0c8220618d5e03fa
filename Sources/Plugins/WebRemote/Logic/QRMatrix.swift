/// The module grid of a QR symbol under construction: function patterns, codeword placement,
/// masking and the penalty score. `modules[y][x]`, true = dark.
struct Matrix: Sendable {
    let size: Int
    let version: Int
    var modules: [[Bool]]
    var isFunction: [[Bool]]

    init(version: Int) {
        self.version = version
        size = 17 + 4 * version
        modules = Array(repeating: Array(repeating: false, count: size), count: size)
        isFunction = modules
    }

    mutating func set(_ x: Int, _ y: Int, _ dark: Bool) {
        modules[y][x] = dark
        isFunction[y][x] = true
    }

    mutating func drawFunctionPatterns() {
        for index in 0 ..< size {
            set(6, index, index % 2 == 0)
            set(index, 6, index % 2 == 0)
        }
        drawFinder(3, 3)
        drawFinder(size - 4, 3)
        drawFinder(3, size - 4)
        if version >= 2 {
            let position = QRCode.alignmentPosition[version - 1]
            drawAlignment(position, position)
        }
        drawFormatBits(0) // reserves the area; the real bits are drawn after masking
    }

    private mutating func drawFinder(_ cx: Int, _ cy: Int) {
        for dy in -4 ... 4 {
            for dx in -4 ... 4 {
                let x = cx + dx, y = cy + dy
                guard (0 ..< size).contains(x), (0 ..< size).contains(y) else { continue }
                let distance = max(abs(dx), abs(dy))
                set(x, y, distance != 2 && distance != 4)
            }
        }
    }

    private mutating func drawAlignment(_ cx: Int, _ cy: Int) {
        for dy in -2 ... 2 {
            for dx in -2 ... 2 { set(cx + dx, cy + dy, max(abs(dx), abs(dy)) != 1) }
        }
    }

    mutating func drawFormatBits(_ bits: Int) {
        func bit(_ index: Int) -> Bool { (bits >> index) & 1 == 1 }
        for index in 0 ... 5 { set(8, index, bit(index)) }
        set(8, 7, bit(6))
        set(8, 8, bit(7))
        set(7, 8, bit(8))
        for index in 9 ..< 15 { set(14 - index, 8, bit(index)) }
        for index in 0 ..< 8 { set(size - 1 - index, 8, bit(index)) }
        for index in 8 ..< 15 { set(8, size - 15 + index, bit(index)) }
        set(8, size - 8, true) // the dark module
    }

    /// Places the codewords in the zigzag order, two columns at a time from the bottom right.
    mutating func drawCodewords(_ data: [UInt8]) {
        var bitIndex = 0
        var right = size - 1
        while right >= 1 {
            if right == 6 { right = 5 }
            for vertical in 0 ..< size {
                for offset in 0 ..< 2 {
                    let x = right - offset
                    let upward = (right + 1) & 2 == 0
                    let y = upward ? size - 1 - vertical : vertical
                    if !isFunction[y][x], bitIndex < data.count * 8 {
                        modules[y][x] = (data[bitIndex >> 3] >> (7 - (bitIndex & 7))) & 1 == 1
                        bitIndex += 1
                    }
                }
            }
            right -= 2
        }
    }

    mutating func applyMask(_ mask: Int) {
        for y in 0 ..< size {
            for x in 0 ..< size where !isFunction[y][x] {
                let invert: Bool
                switch mask {
                case 0: invert = (x + y) % 2 == 0
                case 1: invert = y % 2 == 0
                case 2: invert = x % 3 == 0
                case 3: invert = (x + y) % 3 == 0
                case 4: invert = (x / 3 + y / 2) % 2 == 0
                case 5: invert = x * y % 2 + x * y % 3 == 0
                case 6: invert = (x * y % 2 + x * y % 3) % 2 == 0
                default: invert = ((x + y) % 2 + x * y % 3) % 2 == 0
                }
                if invert { modules[y][x].toggle() }
            }
        }
    }

    /// The standard's four penalty rules: runs, 2×2 blocks, finder-like patterns, dark balance.
    func penalty() -> Int {
        var total = 0
        let lines = modules + (0 ..< size).map { x in modules.map { $0[x] } }
        let finderLike: [Bool] = [true, false, true, true, true, false, true]
        let light4 = [Bool](repeating: false, count: 4)
        for line in lines {
            var run = 1
            for index in 1 ..< size {
                if line[index] == line[index - 1] {
                    run += 1
                    if run == 5 { total += 3 } else if run > 5 { total += 1 }
                } else {
                    run = 1
                }
            }
            for start in 0 ... size - 11 {
                let window = Array(line[start ..< start + 11])
                if window == finderLike + light4 || window == light4 + finderLike { total += 40 }
            }
        }
        for y in 0 ..< size - 1 {
            for x in 0 ..< size - 1 {
                let colour = modules[y][x]
                if modules[y][x + 1] == colour, modules[y + 1][x] == colour, modules[y + 1][x + 1] == colour { total += 3 }
            }
        }
        let dark = modules.reduce(0) { $0 + $1.filter { $0 }.count }
        let all = size * size
        total += ((abs(dark * 20 - all * 10) + all - 1) / all - 1) * 10
        return total
    }
}
