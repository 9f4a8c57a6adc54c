// json-server middleware: the @wiforge/averos 1.4.1 runtime logs in with POST <beURL>/auth/login
// and keeps the returned auth_token; answer it so that the generated app's login page works
// against the same json-server that serves the entity endpoints.
module.exports = (req, res, next) => {
  if (req.method === 'POST' && req.path === '/auth/login') {
    const userName = (req.body && (req.body.userName || req.body.email)) || 'reader';
    res.json({ auth_token: { userName, token: 'test-token', accountVerified: true, roles: [] } });
    return;
  }
  next();
};
