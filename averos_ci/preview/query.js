// json-server middleware of `averos-ci preview`: the @wiforge/averos 1.4.1 runtime searches
// with a MongoDB-style query, `?filter={"title":{"$regex":"Dune"}}`, unless the service
// configuration says apiHTTPQueryBuilder: json-server. json-server would read `filter` as a
// field to match (and list nothing); translate it into json-server's own parameters.
'use strict';
const SUFFIX = { $regex: '_like', $ne: '_ne', $gte: '_gte', $gt: '_gte', $lte: '_lte', $lt: '_lte' };

module.exports = (req, res, next) => {
  if (req.method !== 'GET' || typeof req.query.filter !== 'string') return next();
  let filter;
  try {
    filter = JSON.parse(req.query.filter);
  } catch (_) {
    return next();
  }
  delete req.query.filter;
  for (const [field, condition] of Object.entries(filter || {})) {
    const ops = condition && typeof condition === 'object' && !Array.isArray(condition)
      ? condition : { $eq: condition };
    for (const [op, value] of Object.entries(ops)) {
      if (op === '$eq') req.query[field] = String(value);
      else if (op === '$in' && Array.isArray(value)) req.query[field] = value.map(String);
      else if (SUFFIX[op]) req.query[field + SUFFIX[op]] = String(value);
    }
  }
  next();
};
