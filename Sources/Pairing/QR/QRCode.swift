internal import CQRencode
import Foundation

/// A QR code symbol: a square of dark and light modules, encoded by libqrencode at the error correction level
/// asked for (M unless told), the smallest version that fits, in 8-bit byte mode.
public struct QRCode: Sendable, Hashable {
    /// How much of the symbol may be damaged and still read: L 7 %, M 15 %, Q 25 %, H 30 %. The lower, the
    /// fewer modules for the same text.
    public enum Level: Sendable, Hashable, CaseIterable {
        case low, medium, quartile, high

        var libqrencode: QRecLevel {
            switch self {
            case .low: QR_ECLEVEL_L
            case .medium: QR_ECLEVEL_M
            case .quartile: QR_ECLEVEL_Q
            case .high: QR_ECLEVEL_H
            }
        }
    }

    /// Modules per side (21 for version 1 … 177 for version 40), without a quiet zone.
    public let width: Int
    /// Row-major, `true` = dark.
    private let modules: [Bool]

    /// Encodes `text` (its UTF-8 bytes) at `level`.
    /// - Throws: ``QRCodeError`` `.payloadTooLong` when it does not fit in a version 40 symbol.
    public init(encoding text: String, level: Level = .medium) throws(QRCodeError) {
        let byteCount = text.utf8.count
        guard byteCount > 0 else { throw QRCodeError.emptyPayload }
        errno = 0
        let encoded = text.withCString { QRcode_encodeString($0, 0, level.libqrencode, QR_MODE_8, 1) }
        guard let encoded else {
            if errno == ERANGE { throw QRCodeError.payloadTooLong(byteCount: byteCount) }
            throw QRCodeError.encodingFailed(String(cString: strerror(errno)))
        }
        defer { QRcode_free(encoded) }
        let width = Int(encoded.pointee.width)
        // libqrencode: one byte per module, bit 0 set = dark; the other bits describe the module's role.
        let bytes = UnsafeBufferPointer(start: encoded.pointee.data, count: width * width)
        self.width = width
        self.modules = bytes.map { $0 & 1 == 1 }
    }

    /// Whether the module at `row`, `column` is dark. Coordinates outside the symbol are light (quiet zone).
    public func isDark(row: Int, column: Int) -> Bool {
        guard (0..<width).contains(row), (0..<width).contains(column) else { return false }
        return modules[row * width + column]
    }
}

/// Why a payload could not become a QR code.
public struct QRCodeError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure.
    public enum Code: Sendable, Hashable {
        /// More bytes than a version 40 symbol at level M holds (2331).
        case payloadTooLong
        /// Nothing to encode.
        case emptyPayload
        /// libqrencode failed otherwise (out of memory).
        case encodingFailed
    }

    /// The kind of failure.
    public let code: Code
    /// A message for a person.
    public let message: String

    public var description: String { message }

    /// The payload does not fit.
    public static func payloadTooLong(byteCount: Int) -> QRCodeError {
        QRCodeError(code: .payloadTooLong, message: "payload too long for a QR code (\(byteCount) bytes)")
    }

    /// The payload is empty.
    public static let emptyPayload = QRCodeError(code: .emptyPayload, message: "cannot make a QR code of an empty payload")

    /// libqrencode failed.
    public static func encodingFailed(_ reason: String) -> QRCodeError {
        QRCodeError(code: .encodingFailed, message: "cannot make a QR code: \(reason)")
    }
}
