//! The answer of a kernel scenario as JSON (S36).

#[allow(unused_imports)]
use crate::prelude::*;

use serde_json::{Map, Value, json};

use super::*;
use crate::params::ParamsError;
use crate::result::{self, AnswerError, int};
fn index_json(i: Option<usize>) -> Value {
    i.map_or(Value::Null, |i| json!(i))
}

/// The params object of S36: S24's without `cancel_pass`.
pub fn params_json(params: &Params) -> Result<Value, ParamsError> {
    let mut value = params.to_json_value()?;
    if let Some(map) = value.as_object_mut() {
        map.shift_remove("cancel_pass");
    }
    Ok(value)
}

impl ScenarioResult {
    /// The S36 answer (an error if the params hold a closure).
    pub fn to_json_value(&self) -> Result<Value, ParamsError> {
        let streams: Vec<Value> = self
            .streams
            .iter()
            .map(|s| {
                json!({
                    "req": s.req,
                    "offset": s.offset,
                    "length": s.length,
                    "pass": s.pass,
                    "status": s.status.as_str(),
                    "error": result::error_json(&s.error),
                    "halt": s.halt,
                })
            })
            .collect();
        let host: Vec<Value> = self
            .host
            .iter()
            .map(|h| {
                let (outcome, reason) = match h.outcome {
                    Outcome::Taken => ("taken", Value::Null),
                    Outcome::Rejected(r) => ("rejected", json!(r.number())),
                    Outcome::Waiting => ("waiting", Value::Null),
                };
                json!({
                    "pass": h.pass,
                    "outcome": outcome,
                    "reason": reason,
                    "stream": index_json(h.stream),
                })
            })
            .collect();
        let commands: Vec<Value> = self
            .commands
            .iter()
            .map(|c| {
                let mut map = result::command_json(&c.command);
                map.insert("stream".into(), index_json(c.stream));
                Value::Object(map)
            })
            .collect();
        let events: Vec<Value> = self.events.iter().map(result::event_json).collect();
        Ok(json!({
            "params": params_json(&self.params)?,
            "streams": streams,
            "host": host,
            "commands": commands,
            "events": events,
            "stopped": self.stopped,
            "passes": self.passes,
        }))
    }

    /// Reads the S36 answer back (for saved answers). Every key of the nested
    /// objects must be known; a `cancel_pass` in `params` is an error.
    pub fn from_json_value(value: &Value) -> Result<ScenarioResult, AnswerError> {
        let top = result::fields(
            value,
            "answer",
            &[
                "params", "streams", "host", "commands", "events", "stopped", "passes",
            ],
        )?;
        if top["params"].get("cancel_pass").is_some() {
            return Err(AnswerError("params: unknown key `cancel_pass`".into()));
        }
        let params = Params::from_json_value(&top["params"])
            .map_err(|e| AnswerError(format!("params: {e}")))?;
        let streams = result::list(&top["streams"], "streams", stream_from_json)?;
        let host = result::list(&top["host"], "host", host_from_json)?;
        let commands = result::list(&top["commands"], "commands", command_from_json)?;
        let events = result::list(&top["events"], "events", result::event_from_json)?;
        Ok(ScenarioResult {
            params,
            streams,
            host,
            commands,
            events,
            stopped: top["stopped"]
                .as_bool()
                .ok_or_else(|| AnswerError("`stopped` is not a boolean".into()))?,
            passes: int(&top["passes"], "passes", u64::MAX)?,
        })
    }
}

fn u32_of(v: &Value, what: &str) -> Result<u32, AnswerError> {
    Ok(int(v, what, u32::MAX.into())? as u32)
}

fn index_of(v: &Value, what: &str) -> Result<Option<usize>, AnswerError> {
    if v.is_null() {
        return Ok(None);
    }
    let i = int(v, what, u32::MAX.into())?;
    Ok(Some(i as usize))
}

fn stream_from_json(v: &Value) -> Result<StreamOutcome, AnswerError> {
    let keys = ["req", "offset", "length", "pass", "status", "error", "halt"];
    let o = result::fields(v, "streams", &keys)?;
    let status = result::status_from_json(&o["status"])?;
    let halt = match &o["halt"] {
        Value::Null => None,
        h => Some(u32_of(h, "halt")?),
    };
    Ok(StreamOutcome {
        req: u32_of(&o["req"], "req")?,
        offset: u32_of(&o["offset"], "offset")?,
        length: u32_of(&o["length"], "length")?,
        pass: int(&o["pass"], "pass", u64::MAX)?,
        status,
        error: result::error_from_json(&o["error"], "error")?,
        halt,
    })
}

fn host_from_json(v: &Value) -> Result<HostOutcome, AnswerError> {
    let o = result::fields(v, "host", &["pass", "outcome", "reason", "stream"])?;
    let pass = match &o["pass"] {
        Value::Null => None,
        p => Some(int(p, "pass", u64::MAX)?),
    };
    let reason = match &o["reason"] {
        Value::Null => None,
        r => {
            let n = int(r, "reason", 255)? as u8;
            Some(Reason::from_u8(n).ok_or_else(|| AnswerError(format!("`host`: no reason {n}")))?)
        }
    };
    let outcome = match (o["outcome"].as_str(), reason) {
        (Some("taken"), None) => Outcome::Taken,
        (Some("rejected"), Some(r)) => Outcome::Rejected(r),
        (Some("waiting"), None) => Outcome::Waiting,
        _ => {
            return Err(AnswerError(
                "`host`: `outcome` is not \"taken\", \"rejected\" (with a reason) or \"waiting\""
                    .into(),
            ));
        }
    };
    Ok(HostOutcome {
        pass,
        outcome,
        stream: index_of(&o["stream"], "stream")?,
    })
}

fn command_from_json(v: &Value) -> Result<ScenarioCommand, AnswerError> {
    let mut o: Map<String, Value> = v
        .as_object()
        .cloned()
        .ok_or_else(|| AnswerError("`commands` entry is not an object".into()))?;
    let stream = o
        .shift_remove("stream")
        .ok_or_else(|| AnswerError("`commands`: missing `stream`".into()))?;
    Ok(ScenarioCommand {
        command: result::command_from_json(&Value::Object(o))?,
        stream: index_of(&stream, "stream")?,
    })
}
