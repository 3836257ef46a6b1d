//! What a snapshot builds once so that plugins need not walk every node and every pod for each
//! pod they schedule (not upstream: upstream's plugins walk the NodeInfos' label maps and pod
//! lists): the nodes' labels as columns, the bound pods as an interned table, the nodes'
//! images by name and the existing pods' scoring affinity terms.

pub(crate) mod images;
pub(crate) mod labels;
pub(crate) mod pods;
pub(crate) mod terms;
