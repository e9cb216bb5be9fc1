//! Every enum whose id derives from strum: the id is its serde (JSON, database) spelling.

use super::*;

fn agrees<T: serde::Serialize + std::fmt::Debug>(value: &T, id: &str) {
    let json = serde_json::to_value(value).expect("json");
    assert_eq!(json.as_str(), Some(id), "{value:?}");
}

#[test]
fn each_id_is_the_serde_name() {
    for v in OutcomeKind::ALL {
        agrees(&v, v.id());
    }
    for v in ErrorKind::ALL {
        agrees(&v, v.id());
    }
    for v in OutcomeClass::ALL {
        agrees(&v, v.id());
    }
    for v in BatchItemState::ALL {
        agrees(&v, v.id());
    }
    for v in Strategy::ALL {
        agrees(&v, v.id());
    }
    for v in [BudgetScope::Run, BudgetScope::Host, BudgetScope::Profile] {
        agrees(&v, v.id());
    }
    for v in [Combine::Replace, Combine::Max, Combine::Clamp] {
        let id: &'static str = v.into();
        agrees(&v, id);
    }
    assert_eq!(OutcomeKind::GaveUp.id(), "gave_up");
}
