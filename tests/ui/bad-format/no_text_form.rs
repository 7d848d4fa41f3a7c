use keyschema::{DecodeError, KeyComponent, Reader, RowKey};

#[derive(Debug, Clone, Copy, PartialEq)]
struct TenantId(u32);

impl KeyComponent for TenantId {
    type Ref<'a> = TenantId;
    fn as_key_ref(&self) -> TenantId {
        *self
    }
    fn encode_key(value: TenantId, out: &mut Vec<u8>) {
        u32::encode_key(value.0, out)
    }
    fn decode_key(input: &mut Reader<'_>) -> Result<Self, DecodeError> {
        u32::decode_key(input).map(TenantId)
    }
}

#[derive(RowKey)]
#[rowkey(format = text(sep = "#"), then = tenant, name)]
struct Doc {
    tenant: TenantId,
    name: String,
}

fn main() {}
