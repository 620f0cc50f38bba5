import Testing

@testable import BridgeServer

@Suite struct FileDownloadRouteTests {
    @Test func theAttachmentNameIsSafeForAHeader() {
        #expect(FileDownloadRoute.attachment(name: "a.txt") == #"attachment; filename="a.txt"; filename*=UTF-8''a.txt"#)
        let odd = FileDownloadRoute.attachment(name: "x\"\r\nSet-Cookie: é.txt")
        #expect(!odd.contains("\r") && !odd.contains("\n"))
        #expect(odd.hasPrefix(#"attachment; filename="x___Set-Cookie: _.txt"; filename*=UTF-8''x%22%0D%0ASet-Cookie%3A%20%C3%A9.txt"#))
    }
}
