//! An HTTP/1.1 proxy in front of the DynamoDB-API server that answers part
//! of a BatchWriteItem with `UnprocessedItems`, as DynamoDB does when a
//! partition is throttled (no local server ever does), and counts the calls
//! by operation. It forwards everything else as it is.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// What the proxy does and saw.
#[derive(Default)]
pub struct Faults {
    /// BatchWriteItem calls still to answer partly: half the items
    /// (at least one) come back unprocessed.
    pub partial_batches: AtomicUsize,
    /// Calls seen, by operation (`BatchWriteItem`, `Query`, ...).
    pub calls: Mutex<HashMap<String, usize>>,
}

impl Faults {
    /// How many calls of `operation` went through.
    pub fn calls(&self, operation: &str) -> usize {
        self.calls
            .lock()
            .map(|c| c.get(operation).copied().unwrap_or(0))
            .unwrap_or(0)
    }
}

/// Starts the proxy in front of `upstream` (`http://host:port`); returns its endpoint.
pub async fn start(upstream: &str, faults: Arc<Faults>) -> String {
    let upstream = upstream.trim_start_matches("http://").to_string();
    let listener = TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind the proxy");
    let endpoint = format!("http://{}", listener.local_addr().expect("its address"));
    tokio::spawn(async move {
        while let Ok((client, _)) = listener.accept().await {
            let (faults, upstream) = (Arc::clone(&faults), upstream.clone());
            tokio::spawn(async move {
                if let Ok(server) = TcpStream::connect(&upstream).await {
                    let _ = serve(client, server, faults).await;
                }
            });
        }
    });
    endpoint
}

/// One HTTP message: its head (start line and headers) and body.
struct Message {
    head: Vec<String>,
    body: Vec<u8>,
}

impl Message {
    fn header(&self, name: &str) -> Option<&str> {
        self.head.iter().skip(1).find_map(|line| {
            let (k, v) = line.split_once(':')?;
            k.trim().eq_ignore_ascii_case(name).then(|| v.trim())
        })
    }

    fn set_header(&mut self, name: &str, value: &str) {
        self.head.retain(|line| {
            !line
                .split_once(':')
                .is_some_and(|(k, _)| k.trim().eq_ignore_ascii_case(name))
        });
        self.head.push(format!("{name}: {value}"));
    }

    /// Replaces the JSON body, fixing its length and checksum headers.
    fn set_json(&mut self, json: &serde_json::Value) {
        self.body = serde_json::to_vec(json).expect("json");
        let length = self.body.len().to_string();
        self.set_header("Content-Length", &length);
        if self.header("x-amz-crc32").is_some() {
            let crc = crc32fast::hash(&self.body).to_string();
            self.set_header("x-amz-crc32", &crc);
        }
    }

    fn bytes(&self) -> Vec<u8> {
        let mut out = self.head.join("\r\n").into_bytes();
        out.extend_from_slice(b"\r\n\r\n");
        out.extend_from_slice(&self.body);
        out
    }
}

/// Reads one message (Content-Length bodies only, as the SDK and the
/// servers send); `None` at the end of the connection.
async fn read_message(stream: &mut TcpStream, buf: &mut Vec<u8>) -> Option<Message> {
    loop {
        if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            let head: Vec<String> = String::from_utf8_lossy(&buf[..end])
                .split("\r\n")
                .map(str::to_string)
                .collect();
            let mut message = Message {
                head,
                body: Vec::new(),
            };
            let length: usize = message
                .header("Content-Length")
                .and_then(|l| l.parse().ok())
                .unwrap_or(0);
            while buf.len() < end + 4 + length {
                let mut chunk = [0u8; 16 * 1024];
                let n = stream.read(&mut chunk).await.ok().filter(|&n| n > 0)?;
                buf.extend_from_slice(&chunk[..n]);
            }
            message.body = buf[end + 4..end + 4 + length].to_vec();
            buf.drain(..end + 4 + length);
            return Some(message);
        }
        let mut chunk = [0u8; 16 * 1024];
        let n = stream.read(&mut chunk).await.ok().filter(|&n| n > 0)?;
        buf.extend_from_slice(&chunk[..n]);
    }
}

async fn serve(mut client: TcpStream, mut server: TcpStream, faults: Arc<Faults>) -> Option<()> {
    let (mut from_client, mut from_server) = (Vec::new(), Vec::new());
    loop {
        let mut request = read_message(&mut client, &mut from_client).await?;
        let operation = request
            .header("X-Amz-Target")
            .and_then(|t| t.rsplit('.').next())
            .unwrap_or("")
            .to_string();
        if let Ok(mut calls) = faults.calls.lock() {
            *calls.entry(operation.clone()).or_default() += 1;
        }
        let cut = operation == "BatchWriteItem"
            && faults
                .partial_batches
                .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
                .is_ok();
        // The items held back, by table.
        let mut held: Vec<(String, Vec<serde_json::Value>)> = Vec::new();
        if cut {
            let mut json: serde_json::Value = serde_json::from_slice(&request.body).ok()?;
            if let Some(tables) = json["RequestItems"].as_object_mut() {
                for (table, items) in tables.iter_mut() {
                    let list = items.as_array_mut()?;
                    let keep = list.len() / 2;
                    held.push((table.clone(), list.split_off(keep)));
                }
                tables.retain(|_, items| items.as_array().is_some_and(|l| !l.is_empty()));
            }
            request.set_json(&json);
        }
        let forward = !cut
            || serde_json::from_slice::<serde_json::Value>(&request.body)
                .ok()
                .and_then(|j| j["RequestItems"].as_object().map(|t| !t.is_empty()))
                .unwrap_or(false);
        let mut response = if forward {
            server.write_all(&request.bytes()).await.ok()?;
            read_message(&mut server, &mut from_server).await?
        } else {
            Message {
                head: vec![
                    "HTTP/1.1 200 OK".into(),
                    "Content-Type: application/x-amz-json-1.0".into(),
                ],
                body: b"{}".to_vec(),
            }
        };
        if cut {
            let mut json: serde_json::Value =
                serde_json::from_slice(&response.body).unwrap_or_default();
            let unprocessed: serde_json::Map<String, serde_json::Value> = held
                .into_iter()
                .filter(|(_, items)| !items.is_empty())
                .map(|(t, items)| (t, serde_json::Value::Array(items)))
                .collect();
            json["UnprocessedItems"] = serde_json::Value::Object(unprocessed);
            response.set_json(&json);
        }
        client.write_all(&response.bytes()).await.ok()?;
    }
}
