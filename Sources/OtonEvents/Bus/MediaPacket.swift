import OtonSupport
import PluginAPI

/// The format of one media tap, in C form, shared by every packet that has it.
/// Concurrency: immutable after init (the C storage is written once in init and never again, only read).
public final class MediaFormat: @unchecked Sendable {
    public let tap: UInt32
    public let caps: String
    public let sampleFormat: UInt32
    public let rate: UInt32
    public let channels: UInt32
    /// For the PCM tap: the instances' choice this branch was built for (they alone receive it).
    public let pcmChoice: PCMFormatChoice?
    public let pointer: UnsafePointer<oton_media_format>

    private let capsStorage: UnsafeMutablePointer<CChar>
    private let storage: UnsafeMutablePointer<oton_media_format>

    public init(
        tap: UInt32, caps: String, sampleFormat: UInt32 = OTON_SAMPLE_NONE, rate: UInt32 = 0, channels: UInt32 = 0,
        pcmChoice: PCMFormatChoice? = nil
    ) {
        self.tap = tap
        self.pcmChoice = tap == OTON_TAP_PCM ? (pcmChoice ?? .standard) : nil
        self.caps = caps
        self.sampleFormat = sampleFormat
        self.rate = rate
        self.channels = channels
        let utf8 = Array(caps.utf8) + [0]
        capsStorage = UnsafeMutablePointer<CChar>.allocate(capacity: utf8.count)
        for (index, byte) in utf8.enumerated() { capsStorage[index] = CChar(bitPattern: byte) }
        storage = UnsafeMutablePointer<oton_media_format>.allocate(capacity: 1)
        storage.initialize(
            to: oton_media_format(
                struct_size: UInt32(MemoryLayout<oton_media_format>.size), tap: tap,
                caps: UnsafePointer(capsStorage), sample_format: sampleFormat,
                rate: rate, channels: channels, reserved: 0
            ))
        pointer = UnsafePointer(storage)
    }

    deinit {
        storage.deallocate()
        capsStorage.deallocate()
    }
}

/// One buffer from a media tap: the host's own copy of the bytes, shared
/// read-only by every plugin that consumes the tap.
public final class MediaPacket: @unchecked Sendable {
    public let format: MediaFormat
    public let bytes: UnsafeMutableRawBufferPointer
    public let flags: UInt32
    public let presentationNanoseconds: Int64
    public let offset: UInt64
    public let connection: UInt64
    public let monotonicNanoseconds: Int64

    public var tap: UInt32 { format.tap }

    /// Copies `count` bytes from `source`.
    public init(
        format: MediaFormat, copying source: UnsafeRawPointer?, count: Int, flags: UInt32 = 0,
        presentationNanoseconds: Int64 = -1, offset: UInt64, connection: UInt64
    ) {
        self.format = format
        bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: max(count, 1), alignment: 16)
        if let source, count > 0 { bytes.baseAddress!.copyMemory(from: source, byteCount: count) }
        self.byteCount = count
        self.flags = flags
        self.presentationNanoseconds = presentationNanoseconds
        self.offset = offset
        self.connection = connection
        monotonicNanoseconds = Clock.monotonicNanoseconds()
    }

    public convenience init(format: MediaFormat, bytes: [UInt8], flags: UInt32 = 0, offset: UInt64 = 0, connection: UInt64 = 1) {
        self.init(format: format, copying: bytes, count: bytes.count, flags: flags, offset: offset, connection: connection)
    }

    private let byteCount: Int
    public var size: Int { byteCount }

    deinit { bytes.deallocate() }

    /// Calls `body` with the C view of this packet; `extraFlags` are added (DISCONT after a loss).
    package func withCBuffer<R>(extraFlags: UInt32, _ body: (UnsafePointer<oton_media_buffer>) -> R) -> R {
        var buffer = oton_media_buffer(
            struct_size: UInt32(MemoryLayout<oton_media_buffer>.size),
            flags: flags | extraFlags, format: format.pointer,
            data: UnsafePointer(bytes.baseAddress!.assumingMemoryBound(to: UInt8.self)),
            size: byteCount, pts_ns: presentationNanoseconds, offset: offset,
            connection: connection, mono_ns: monotonicNanoseconds
        )
        return withUnsafePointer(to: &buffer) { body($0) }
    }
}
