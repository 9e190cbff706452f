//! serde support (the `serde` feature): ids are numbers, a [`Space`] is written as the list
//! of its locations, blocks and threads and read back through a [`SpaceBuilder`] (so every
//! check the builder makes applies to the input), a [`Candidate`] is written as its block
//! orders and sections.

use serde::de::Error as _;
use serde::ser::SerializeStruct;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::{BlockId, Candidate, ItemInfo, Loc, NodeId, Space, SpaceBuilder, ThreadId, Waits};

crate::serde_ids!(Loc, BlockId, NodeId, ThreadId);

/// A space as written: locations by name in id order (a location is its position in this
/// list), blocks in id order, threads in number order.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct SpaceWire {
    locations: Vec<String>,
    blocks: Vec<BlockWire>,
    #[serde(default)]
    threads: Vec<ThreadWire>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct BlockWire {
    #[serde(default)]
    closed: bool,
    items: Vec<ItemWire>,
    /// Pairs of items that keep their order, the earlier first.
    #[serde(default)]
    fixed: Vec<(Loc, Loc)>,
}

/// An item and what the space knows of it; omitted fields are those of a simple statement.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct ItemWire {
    loc: Loc,
    #[serde(default = "one")]
    weight: u32,
    #[serde(default = "never")]
    waits: Waits,
    #[serde(default = "yes")]
    atomic: bool,
    /// Written only when set: no added section may hold the item.
    #[serde(default, skip_serializing_if = "is_false")]
    no_section: bool,
}

fn one() -> u32 {
    1
}

fn never() -> Waits {
    Waits::Never
}

fn yes() -> bool {
    true
}

fn is_false(b: &bool) -> bool {
    !*b
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct ThreadWire {
    name: String,
    block: BlockId,
}

impl Serialize for Space {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let blocks = self
            .blocks()
            .map(|block| BlockWire {
                closed: self.is_closed(block),
                items: self
                    .items(block)
                    .iter()
                    .map(|&loc| {
                        let info = self.item_info(loc).unwrap_or(ItemInfo::SIMPLE);
                        ItemWire {
                            loc,
                            weight: info.weight,
                            waits: info.waits,
                            atomic: info.atomic,
                            no_section: info.no_section,
                        }
                    })
                    .collect(),
                fixed: self.fixed_pairs(block).collect(),
            })
            .collect();
        let wire = SpaceWire {
            locations: self.locs().map(|l| self.name(l).to_owned()).collect(),
            blocks,
            threads: self.threads().map(|(name, block)| ThreadWire { name: name.to_owned(), block }).collect(),
        };
        wire.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Space {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let wire = SpaceWire::deserialize(deserializer)?;
        build(wire).map_err(|e| D::Error::custom(format!("not a valid space: {e}")))
    }
}

/// The space a wire form describes, through the builder's checks.
fn build(wire: SpaceWire) -> Result<Space, crate::Error> {
    let mut b = SpaceBuilder::new();
    for name in &wire.locations {
        b.loc(name)?;
    }
    for block in &wire.blocks {
        let id = b.block(block.closed);
        for item in &block.items {
            let info = ItemInfo::new(item.weight, item.waits, item.atomic);
            b.item(id, item.loc, if item.no_section { info.never_in_section() } else { info })?;
        }
        for &(earlier, later) in &block.fixed {
            b.fix(earlier, later)?;
        }
    }
    for thread in &wire.threads {
        b.thread(&thread.name, thread.block)?;
    }
    b.build()
}

impl Serialize for Waits {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(match self {
            Waits::Never => "never",
            Waits::First => "first",
            Waits::Inside => "inside",
        })
    }
}

impl<'de> Deserialize<'de> for Waits {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        match String::deserialize(deserializer)?.as_str() {
            "never" => Ok(Waits::Never),
            "first" => Ok(Waits::First),
            "inside" => Ok(Waits::Inside),
            other => Err(D::Error::custom(format!("unknown `waits` value `{other}` (never, first, inside)"))),
        }
    }
}

/// A candidate is written as `{"orders": [[loc, ...], ...], "sections": [[first, last], ...]}`;
/// it is read back with [`Candidate::new`] and its space.
impl Serialize for Candidate {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let orders = self.orders();
        let sections: Vec<(Loc, Loc)> = self.sections().iter().map(|s| (s.first, s.last)).collect();
        let mut s = serializer.serialize_struct("Candidate", 2)?;
        s.serialize_field("orders", orders)?;
        s.serialize_field("sections", &sections)?;
        s.end()
    }
}
