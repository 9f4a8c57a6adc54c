// json-server middleware of `averos-ci preview`: a stub of the login backend that the
// @wiforge/averos 1.4.1 runtime calls at <beURL>/auth/... . Any user name and password log in;
// the token is a fixed placeholder (the mock entity endpoints never check it).
'use strict';
const token = (req) => {
  const userName = (req.body && (req.body.userName || req.body.email)) || 'preview';
  return { auth_token: { userName, token: 'preview-token', accountVerified: true, roles: [] } };
};

module.exports = (req, res, next) => {
  if (req.method === 'POST' && ['/auth/login', '/auth/register'].includes(req.path)) {
    res.json(token(req));
    return;
  }
  if (req.path === '/auth/logout') {
    res.json({});
    return;
  }
  if (req.path.startsWith('/auth/rt/')) {
    res.json(token(req));
    return;
  }
  next();
};
