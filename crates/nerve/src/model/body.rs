//! A request body made of shared parts, sent one after another without being joined.
//!
//! A long session's request carries a conversation of megabytes whose earlier part was written
//! before and does not change. Joining it with the new end into one buffer for every request
//! meant a fresh allocation of the whole size, its pages faulted in and the bytes copied, twice a
//! turn (about 1.5 ms each at 2.4 MB here). As parts, the earlier messages are shared from where
//! they were written, and the body's exact length still goes out as its `Content-Length`.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use http_body::{Frame, SizeHint};

/// The bytes of a request, in parts. Cloning shares the parts (for a retry).
#[derive(Debug, Clone, Default)]
pub struct RequestBody {
    parts: VecDeque<Bytes>,
    len: u64,
}

impl RequestBody {
    /// Adds `part` at the end (an empty one is left out).
    pub fn push(&mut self, part: Bytes) {
        if !part.is_empty() {
            self.len += part.len() as u64;
            self.parts.push_back(part);
        }
    }

    /// The body's length in bytes.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether there is nothing to send.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The parts joined (for tests and logs, not for sending).
    pub fn to_vec(&self) -> Vec<u8> {
        let mut joined = Vec::with_capacity(usize::try_from(self.len).unwrap_or(0));
        for part in &self.parts {
            joined.extend_from_slice(part);
        }
        joined
    }
}

impl From<Vec<u8>> for RequestBody {
    fn from(bytes: Vec<u8>) -> Self {
        let mut body = Self::default();
        body.push(Bytes::from(bytes));
        body
    }
}

impl http_body::Body for RequestBody {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        let next = self.parts.pop_front();
        Poll::Ready(next.map(|part| {
            self.len -= part.len() as u64;
            Ok(Frame::data(part))
        }))
    }

    fn is_end_stream(&self) -> bool {
        self.parts.is_empty()
    }

    fn size_hint(&self) -> SizeHint {
        SizeHint::with_exact(self.len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use http_body::Body as _;

    /// The parts come out in order, the size left is exact at each step, and a clone taken
    /// before sending still holds everything.
    #[test]
    fn parts_come_out_in_order_with_an_exact_size() {
        let mut body = RequestBody::from(b"{\"a\":".to_vec());
        body.push(Bytes::new());
        body.push(Bytes::from_static(b"[1,2]"));
        body.push(Bytes::from_static(b"}"));
        let kept = body.clone();
        assert_eq!((body.len(), body.to_vec()), (11, b"{\"a\":[1,2]}".to_vec()));
        let waker = std::task::Waker::noop();
        let mut cx = Context::from_waker(waker);
        let mut sent = Vec::new();
        let mut sizes = Vec::new();
        while let Poll::Ready(Some(Ok(frame))) = Pin::new(&mut body).poll_frame(&mut cx) {
            sent.push(frame.into_data().unwrap());
            sizes.push(body.size_hint().exact());
        }
        assert_eq!(sent, [&b"{\"a\":"[..], b"[1,2]", b"}"]);
        assert_eq!(sizes, [Some(6), Some(1), Some(0)]);
        assert!(body.is_end_stream());
        assert_eq!(kept.to_vec(), b"{\"a\":[1,2]}");
    }

    /// Sent through reqwest, the parts go out with their total as `Content-Length` (not chunked),
    /// as one request body.
    #[tokio::test]
    async fn sent_with_its_exact_length() {
        use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/v1/messages", listener.local_addr().unwrap());
        let server = tokio::spawn(async move {
            let (mut socket, _) = listener.accept().await.unwrap();
            let mut received = Vec::new();
            let mut buf = [0u8; 4096];
            while !received.ends_with(b"}") {
                let n = socket.read(&mut buf).await.unwrap();
                assert!(n > 0, "the connection closed early");
                received.extend_from_slice(&buf[..n]);
            }
            socket
                .write_all(b"HTTP/1.1 204 No Content\r\n\r\n")
                .await
                .unwrap();
            String::from_utf8(received).unwrap()
        });
        let mut body = RequestBody::from(b"{\"a\":".to_vec());
        body.push(Bytes::from_static(b"[1,2]"));
        body.push(Bytes::from_static(b"}"));
        crate::http::install_crypto_provider();
        let sent = reqwest::Client::new()
            .post(url)
            .body(reqwest::Body::wrap(body))
            .send()
            .await
            .unwrap();
        assert_eq!(sent.status(), 204);
        let request = server.await.unwrap();
        let (head, received) = request.split_once("\r\n\r\n").unwrap();
        assert!(
            head.to_ascii_lowercase().contains("\r\ncontent-length: 11"),
            "{head}"
        );
        assert!(!head.to_ascii_lowercase().contains("transfer-encoding"), "{head}");
        assert_eq!(received, "{\"a\":[1,2]}");
    }
}
