/// What an upload is, from its first bytes (never from the client's `Content-Type`): the images and audio
/// formats the bridge passes to Codex.
enum MediaSniffer {
    struct Media: Sendable, Hashable {
        var mimeType: String
        /// The file name extension the upload is stored with.
        var fileExtension: String
        /// `image` or `audio`.
        var kind: String
    }

    static func sniff(_ bytes: some Collection<UInt8>) -> Media? {
        let head = Array(bytes.prefix(16))
        func starts(_ prefix: [UInt8], at offset: Int = 0) -> Bool {
            head.count >= offset + prefix.count && Array(head[offset..<offset + prefix.count]) == prefix
        }
        let ascii = { (text: String) in Array(text.utf8) }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            return Media(mimeType: "image/png", fileExtension: "png", kind: "image")
        }
        if starts([0xFF, 0xD8, 0xFF]) { return Media(mimeType: "image/jpeg", fileExtension: "jpg", kind: "image") }
        if starts(ascii("RIFF")), starts(ascii("WEBP"), at: 8) {
            return Media(mimeType: "image/webp", fileExtension: "webp", kind: "image")
        }
        if starts(ascii("RIFF")), starts(ascii("WAVE"), at: 8) { return Media(mimeType: "audio/wav", fileExtension: "wav", kind: "audio") }
        if starts(ascii("ftyp"), at: 4), head.count >= 12 {
            let brand = String(decoding: head[8..<12], as: UTF8.self)
            if ["heic", "heix", "hevc", "heim", "heis", "mif1", "msf1"].contains(brand) {
                return Media(mimeType: "image/heic", fileExtension: "heic", kind: "image")
            }
            if ["M4A ", "M4B "].contains(brand) { return Media(mimeType: "audio/mp4", fileExtension: "m4a", kind: "audio") }
        }
        if starts(ascii("ID3")) || starts([0xFF, 0xFB]) || starts([0xFF, 0xF3]) || starts([0xFF, 0xF2]) {
            return Media(mimeType: "audio/mpeg", fileExtension: "mp3", kind: "audio")
        }
        if starts(ascii("OggS")) { return Media(mimeType: "audio/ogg", fileExtension: "ogg", kind: "audio") }
        if starts(ascii("fLaC")) { return Media(mimeType: "audio/flac", fileExtension: "flac", kind: "audio") }
        if starts([0x1A, 0x45, 0xDF, 0xA3]) { return Media(mimeType: "audio/webm", fileExtension: "webm", kind: "audio") }
        return nil
    }
}
